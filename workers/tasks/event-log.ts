/** Task `event-log`: the AMT event log (`AMT_MessageLog`), decoded, newest first. */
import type { TaskTools } from '../task-api.js';
import { runDeviceOperation } from '../amt/device-operation.js';
import { readEventLog } from '../amt/reads/event-log.js';
import type { EventLogInput, EventLogOutput } from './task-types.js';

export default async function eventLog(input: EventLogInput, tools: TaskTools): Promise<EventLogOutput> {
  return runDeviceOperation(input?.target, input?.credential, tools.signal, async (client) => ({
    records: await readEventLog(client, { maxRecords: input.maxRecords ?? 1000 }),
  }));
}
