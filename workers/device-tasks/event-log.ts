/** Device task `event-log`: the AMT event log (`AMT_MessageLog`), decoded, newest first. */
import { readEventLog } from '../amt/reads/event-log.js';
import type { EventRecord } from '../amt/reads/event-record.js';
import type { BuiltInDeviceTask } from './built-in.js';
import type { EventLogInput } from './device-task-types.js';

const eventLog: BuiltInDeviceTask<EventLogInput, { records: EventRecord[] }> = async (wsman, input) => ({
  records: await readEventLog(wsman, { maxRecords: input?.maxRecords ?? 1000 }),
});
export default eventLog;
