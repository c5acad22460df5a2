/**
 * What one action (activation, deactivation, maintenance) leaves behind: its record (written when it
 * starts, waits and ends), an `ActivationProgress` event per step on the bus (the hub carries it),
 * and an audit record when it ends, with every step it took. None of them holds a secret: problems
 * keep their code and text, which name none.
 */
import { isHttpError, type EventBus, type Logger } from '../../../core/plugin-api.js';
import type { AuditTrail } from 'amt-gateway/audit';
import type { RecordLog } from '../store/record-log.js';
import type { ActivationRecord } from '../schemas.js';

export interface TrackerParts {
  records: RecordLog;
  events: EventBus;
  audit: AuditTrail | undefined;
  logger: Logger;
}

/** A problem as records tell it: its code and text (coded problems' texts name no secret), else a generic one. */
export function problemOf(error: unknown): { code: string; detail: string } {
  if (isHttpError(error)) return { code: error.code, detail: error.message };
  return { code: 'GW_ERR_ACTIVATION_INTERNAL', detail: 'the action failed unexpectedly (see the gateway log)' };
}

/** What the agent prints as each step begins. */
const STEP_LINES: Record<string, string> = {
  check: 'Checking the request',
  approval: 'Waiting for an operator to approve replacing the managed device with this UUID',
  read: 'Reading the firmware',
  setup: 'Activating',
  confirm: 'Confirming the control mode',
  mebx: 'Setting the MEBx password',
  features: 'Configuring redirection features and user consent',
  cira: 'Configuring CIRA',
  unprovision: 'Deactivating',
  forget: 'Removing the stored password',
};

export class ActionTracker {
  #stepStarted = performance.now();
  #callsAtStep = 0;

  /**
   * @param relayed the requests relayed to the firmware so far (the session's count: every HTTP exchange, Digest challenges included)
   * @param tell a line for the agent to print at each step (rpc-go 2.x prints RPS's progress messages)
   */
  constructor(
    private readonly parts: TrackerParts,
    readonly record: ActivationRecord,
    private readonly relayed: () => number,
    private readonly tell: (line: string) => void = () => undefined,
  ) {}

  async start(): Promise<void> {
    this.#stepStarted = performance.now();
    await this.parts.records.save(this.record);
    this.#publish();
  }

  /** A new step begins (the one before ends). */
  step(name: string): void {
    this.#closeStep();
    this.record.step = name;
    this.#callsAtStep = this.record.calls;
    this.record.steps.push({ step: name, at: new Date().toISOString() });
    this.tell(STEP_LINES[name] ?? name);
    this.#publish();
  }

  /** The action waits for an operator (its record says so until it goes on). */
  async waiting(step: string): Promise<void> {
    this.step(step);
    this.record.outcome = 'waiting';
    await this.parts.records.save(this.record);
    this.#publish();
  }

  resumed(): void {
    this.record.outcome = 'running';
  }

  async succeed(deviceId?: string): Promise<void> {
    if (deviceId) this.record.deviceId = deviceId;
    await this.#end('succeeded');
  }

  async fail(error: unknown): Promise<void> {
    this.record.error = problemOf(error);
    if (!isHttpError(error)) this.parts.logger.error('activation action failed unexpectedly', { recordId: this.record.id, uuid: this.record.uuid, error: error instanceof Error ? error.message : String(error) });
    await this.#end('failed');
  }

  #closeStep(): void {
    this.record.calls = this.relayed();
    const current = this.record.steps[this.record.steps.length - 1];
    if (current && current.ms === undefined) {
      current.ms = Math.round(performance.now() - this.#stepStarted);
      current.calls = this.record.calls - this.#callsAtStep;
    }
    this.#stepStarted = performance.now();
  }

  async #end(outcome: 'succeeded' | 'failed'): Promise<void> {
    this.#closeStep();
    const record = this.record;
    record.outcome = outcome;
    record.finishedAt = new Date().toISOString();
    await this.parts.records.save(record);
    this.#publish();
    await this.parts.audit?.record({
      by: { user: null, address: record.remoteAddress },
      action: `activation.${record.action}`,
      target: record.deviceId ?? record.uuid,
      outcome: outcome === 'succeeded' ? 'success' : 'failure',
      detail: {
        recordId: record.id,
        uuid: record.uuid,
        profile: record.profile,
        mode: record.mode,
        ...(record.task ? { task: record.task } : {}),
        calls: record.calls,
        steps: record.steps.map((s) => s.step),
        ...(record.error ? { error: record.error.code } : {}),
      },
    });
  }

  #publish(): void {
    const { id, uuid, action, step, outcome, calls, error, deviceId } = this.record;
    this.parts.events.publish('ActivationProgress', { recordId: id, uuid, action, step, outcome, calls, ...(error ? { error } : {}), ...(deviceId ? { deviceId } : {}) });
  }
}
