import { randomBytes } from 'node:crypto';
import { SoapFault } from './errors.js';

/** A page of an enumeration. */
export interface EnumerationPage {
  items: string[];
  /** True when this page reaches the end of the snapshot. */
  endOfSequence: boolean;
}

/**
 * Open enumeration contexts, in memory: each holds a snapshot of the connected machines taken
 * when it was opened, a read position and a fixed expiry. Bounded in number, in all and per caller
 * (so that one caller cannot take every place and starve the others until the contexts expire);
 * ids are 192 random bits, and a context answers only the caller that opened it.
 */
export interface EnumerationStore {
  /** Opens a context over `items`; a fault when `maxContexts` live contexts exist already, or `maxContextsPerCaller` of `owner`. */
  open(owner: string, items: string[]): { id: string; expiresAt: Date };
  /** The next at most `max` items; a fault for an unknown, released or expired context. */
  pull(owner: string, id: string, max: number): EnumerationPage;
  release(owner: string, id: string): void;
  /** Live contexts now. */
  size(): number;
}

export interface EnumerationStoreOptions {
  ttlSeconds: number;
  maxContexts: number;
  maxContextsPerCaller: number;
  now?: () => number;
}

interface Context {
  owner: string;
  items: string[];
  position: number;
  expiresAt: number;
}

export function createEnumerationStore(options: EnumerationStoreOptions): EnumerationStore {
  const now = options.now ?? Date.now;
  const contexts = new Map<string, Context>();
  const perOwner = new Map<string, number>();

  const remove = (id: string, context: Context) => {
    contexts.delete(id);
    const left = (perOwner.get(context.owner) ?? 1) - 1;
    if (left > 0) perOwner.set(context.owner, left);
    else perOwner.delete(context.owner);
  };

  const sweep = () => {
    const t = now();
    for (const [id, context] of contexts) if (context.expiresAt <= t) remove(id, context);
  };
  const live = (owner: string, id: string): Context => {
    const context = contexts.get(id);
    if (context && context.expiresAt <= now()) remove(id, context);
    else if (context && context.owner === owner) return context;
    // One message for unknown, released, expired and foreign contexts: it reveals nothing.
    throw new SoapFault('GW_ERR_SOAP_UNKNOWN_CONTEXT', 'the enumeration context is unknown, released or expired');
  };

  return {
    open(owner, items) {
      sweep();
      const mine = perOwner.get(owner) ?? 0;
      if (mine >= options.maxContextsPerCaller) {
        throw new SoapFault(
          'GW_ERR_SOAP_TOO_MANY_CALLER_CONTEXTS',
          `this caller has too many open enumeration contexts (at most ${options.maxContextsPerCaller}); release contexts or retry later`,
        );
      }
      if (contexts.size >= options.maxContexts) {
        throw new SoapFault('GW_ERR_SOAP_TOO_MANY_CONTEXTS', `too many open enumeration contexts (at most ${options.maxContexts}); release contexts or retry later`);
      }
      const id = randomBytes(24).toString('base64url');
      const expiresAt = now() + options.ttlSeconds * 1000;
      contexts.set(id, { owner, items: [...items], position: 0, expiresAt });
      perOwner.set(owner, mine + 1);
      return { id, expiresAt: new Date(expiresAt) };
    },
    pull(owner, id, max) {
      const context = live(owner, id);
      const items = context.items.slice(context.position, context.position + max);
      context.position += items.length;
      return { items, endOfSequence: context.position >= context.items.length };
    },
    release(owner, id) {
      remove(id, live(owner, id));
    },
    size() {
      sweep();
      return contexts.size;
    },
  };
}
