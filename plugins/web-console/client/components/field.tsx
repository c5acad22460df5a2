import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface FieldProps {
  label: string;
  error?: string | undefined;
  hint?: string;
  children: (props: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }) => ComponentChildren;
}

/** A labelled control with its validation problem next to it (announced through aria-describedby). */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const described = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  return (
    <div class={`field${error ? ' invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children({ id, ...(error ? { 'aria-invalid': true } : {}), ...(described ? { 'aria-describedby': described } : {}) })}
      {hint && <small id={`${id}-hint`}>{hint}</small>}
      {error && (
        <span class="field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      )}
    </div>
  );
}

export function Message({ kind, children }: { kind: 'error' | 'info' | 'ok'; children: ComponentChildren }) {
  return (
    <p class={`message ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </p>
  );
}

// One formatter for every timestamp: toLocaleString() builds a new one per call, which shows when a table scrolls.
const TIME_FORMAT = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' });
export const formatTime = (iso: string | null | undefined) => (iso ? TIME_FORMAT.format(new Date(iso)) : '—');
export const yesNo = (v: boolean | null | undefined) => (v === null || v === undefined ? '—' : v ? 'yes' : 'no');
