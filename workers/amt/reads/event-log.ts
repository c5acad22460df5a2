/** The AMT event log: `AMT_MessageLog.PositionToFirstRecord`, then `GetRecords` until `NoMoreRecords`. */
import { AmtError } from '../errors.js';
import type { WsmanClient } from '../wsman-client.js';
import { booleanOf, textOf, textsOf, type MethodOutput } from '../wsman-parse.js';
import { decodeEventRecord, type EventRecord } from './event-record.js';

export const MESSAGE_LOG = 'AMT_MessageLog';

/** One `GetRecords` answer: the next iteration identifier, the raw records and whether more remain. */
export interface RecordsPage {
  iterationIdentifier: string | null;
  records: string[];
  noMoreRecords: boolean;
}

/** Decodes a `GetRecords_OUTPUT`. @throws AmtError `AMT_ERR_BAD_RESPONSE` for a non-zero ReturnValue. */
export function decodeRecordsPage(output: MethodOutput): RecordsPage {
  if (output.returnValue !== 0) throw new AmtError('AMT_ERR_BAD_RESPONSE', `GetRecords returned ${output.returnValue}`);
  return {
    iterationIdentifier: textOf(output.properties['IterationIdentifier']),
    records: textsOf(output.properties['RecordArray']),
    noMoreRecords: booleanOf(output.properties['NoMoreRecords']) === true,
  };
}

export interface EventLogOptions {
  /** Stop after this many records (default 1,000). */
  maxRecords?: number;
  /** `MaxReadRecords` per GetRecords (default 390, a device's whole log). */
  pageSize?: number;
}

/** Reads the event log from the first record on; records come decoded, newest first. */
export async function readEventLog(client: WsmanClient, options: EventLogOptions = {}): Promise<EventRecord[]> {
  const maxRecords = options.maxRecords ?? 1000;
  const pageSize = options.pageSize ?? 390;
  const first = await client.invoke(MESSAGE_LOG, 'PositionToFirstRecord', {});
  if (first.returnValue !== 0) throw new AmtError('AMT_ERR_BAD_RESPONSE', `PositionToFirstRecord returned ${first.returnValue}`);
  let iteration = textOf(first.properties['IterationIdentifier']);
  const records: EventRecord[] = [];
  // Each page returns at least one record until the end; the bound only protects against a device
  // that claims more records forever.
  for (let pages = 0; iteration !== null && records.length < maxRecords && pages < 1000; pages++) {
    const page = decodeRecordsPage(
      await client.invoke(MESSAGE_LOG, 'GetRecords', { IterationIdentifier: iteration, MaxReadRecords: Math.min(pageSize, maxRecords - records.length) }),
    );
    for (const raw of page.records) {
      const record = decodeEventRecord(raw);
      if (record) records.push(record);
    }
    if (page.noMoreRecords || page.records.length === 0) break;
    iteration = page.iterationIdentifier;
  }
  records.sort((a, b) => b.timestamp - a.timestamp);
  return records.slice(0, maxRecords);
}
