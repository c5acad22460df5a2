/**
 * One agent from its first message to its last: what it asks is read and checked, its device's
 * UUID claimed (one agent per device at a time), the action run within its time bound with a record
 * kept, and the agent told the outcome in RPS's `success` or `error` message.
 */
import type { Logger } from '../../../core/plugin-api.js';
import { ActivationErrors } from '../errors.js';
import type { ActivationRecord } from '../schemas.js';
import type { AgentSession } from '../session/agent-session.js';
import type { SessionDirectory } from '../session/session-directory.js';
import type { RecordLog } from '../store/record-log.js';
import { agentRequest, type AgentRequest } from '../wire/agent-request.js';
import { ActionTracker, problemOf, type TrackerParts } from './action-tracker.js';
import { activate } from './activate-flow.js';
import { deactivate } from './deactivate-flow.js';
import type { FlowContext, FlowParts, StatusMessage } from './flow-parts.js';
import { maintain } from './maintenance-flow.js';

export interface DriverParts extends FlowParts {
  records: RecordLog;
  tracking: TrackerParts;
  directory: SessionDirectory;
  logger: Logger;
}

function run(parts: FlowParts, ctx: FlowContext, request: AgentRequest): Promise<StatusMessage> {
  switch (request.action) {
    case 'activate':
      return activate(parts, ctx, request);
    case 'deactivate':
      return deactivate(parts, ctx, request);
    case 'maintenance':
      return maintain(parts, ctx, request);
  }
}

function newRecord(parts: DriverParts, session: AgentSession, request: AgentRequest): ActivationRecord {
  const { facts } = request;
  return {
    id: parts.records.nextId(),
    uuid: facts.uuid,
    hostname: facts.hostname,
    fqdn: facts.dnsSuffix,
    profile: request.action === 'activate' ? request.profile : null,
    mode: null,
    action: request.action,
    outcome: 'running',
    step: 'connected',
    remoteAddress: session.remoteAddress,
    firmwareVersion: facts.version,
    calls: 0,
    steps: [],
    startedAt: new Date().toISOString(),
  };
}

/** Drives a session to its end; never throws. */
export async function driveSession(parts: DriverParts, session: AgentSession): Promise<void> {
  let request: AgentRequest;
  try {
    request = agentRequest(await session.hello());
  } catch (error) {
    // Nothing was asked that a record could name: the agent is told why, and the log says so.
    parts.logger.warn('activation agent refused before it asked for anything', { remoteAddress: session.remoteAddress, error: problemOf(error).code });
    session.finish('error', problemOf(error).detail);
    return;
  }
  const agent = parts.directory.claim(request.facts.uuid, session);
  if (!agent) {
    session.finish('error', ActivationErrors.busy(`another agent works on device ${request.facts.uuid} now`).message);
    return;
  }
  const tracker = new ActionTracker(parts.tracking, newRecord(parts, session, request), () => session.counters.exchanges, (line) => session.progress(line));
  const controller = new AbortController();
  const timeoutMs = parts.config.actionTimeoutMs;
  const timer = setTimeout(() => {
    controller.abort(ActivationErrors.actionTimeout(timeoutMs));
    // Whatever the action waits for ends with the connection.
    session.drop();
  }, timeoutMs);
  session.onClose(() => controller.abort(controller.signal.reason ?? ActivationErrors.agentGone()));
  try {
    await tracker.start();
    const status = await run(parts, { agent, tracker, signal: controller.signal }, request);
    session.finish('success', JSON.stringify(status));
  } catch (failure) {
    const error = controller.signal.aborted && !(failure instanceof Error && 'status' in failure) ? controller.signal.reason : failure;
    await tracker.fail(error).catch((e: Error) => parts.logger.error('activation record could not be written', { recordId: tracker.record.id, error: e.message }));
    session.finish('error', problemOf(error).detail);
  } finally {
    clearTimeout(timer);
  }
}
