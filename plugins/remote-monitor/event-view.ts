/** The entries of `GET /api/monitor/{deviceId}/events`, from the decoded AMT event log records. */
import type { EventRecord } from '../../workers/tasks/task-types.js';
import { describeEvent } from './event-description.js';

export interface MonitorEvent {
  time: string;
  /** The entity that raised the event (e.g. `BIOS`, `System chassis`). */
  source: string;
  /** `Non-recoverable`, `Critical`, `Non-critical`, `OK`, `Information`, `Monitor` or `Unspecified`. */
  severity: string;
  description: string;
  /** The raw PET fields, for clients that decode further. */
  sensorType: number;
  sensorNumber: number;
  eventType: number;
  eventOffset: number;
  eventSourceType: number;
  entity: number;
  entityInstance: number;
  /** The 8 bytes of event data, hex. */
  eventData: string;
}

export function monitorEvent(record: EventRecord): MonitorEvent {
  return {
    time: record.time,
    source: record.entityName,
    severity: record.severity,
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

