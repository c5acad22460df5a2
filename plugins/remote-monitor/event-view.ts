/** The entries of `GET /api/monitor/{deviceId}/events`, from the decoded AMT event log records. */
import type { EventRecord } from '../../workers/tasks/task-types.js';
import { describeEvent } from './event-description.js';

export type { MonitorEvent } from './monitor-schemas.js';
import { EVENT_SEVERITIES, type MonitorEvent } from './monitor-schemas.js';

/** The record's severity as the API names it: the decoder's name, `Unspecified` for one the API does not list. */
const severityOf = (name: string): MonitorEvent['severity'] => EVENT_SEVERITIES.find((s) => s === name) ?? 'Unspecified';

export function monitorEvent(record: EventRecord): MonitorEvent {
  return {
    time: record.time,
    source: record.entityName,
    severity: severityOf(record.severity),
    description: describeEvent(record),
    sensorType: record.eventSensorType,
    sensorNumber: record.sensorNumber,
    eventType: record.eventType,
    eventOffset: record.eventOffset,
    eventSourceType: record.eventSourceType,
    entity: record.entity,
    entityInstance: record.entityInstance,
    eventData: Buffer.from(record.eventData).toString('hex'),
  };
}

