/** The hardware report and the event entries decoded from the shared WS-Management vectors. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnvelope, parseMethodOutput, parsePullResponse } from '../../../workers/amt/wsman-parse.js';
import { decodeRecordsPage } from '../../../workers/amt/reads/event-log.js';
import { decodeEventRecord, type EventRecord } from '../../../workers/amt/reads/event-record.js';
import { toInventoryItems, type ClassInventory } from '../../../workers/amt/reads/hardware-inventory.js';
import { summarizeHardware } from '../../../workers/amt/reads/hardware-summary.js';
import { hardwareReport } from '../../../plugins/remote-monitor/hardware-view.js';
import { monitorEvent } from '../../../plugins/remote-monitor/event-view.js';
import { readVector } from '../../workers/helpers.js';

const pull = (file: string): ClassInventory => ({ ok: true, items: toInventoryItems(parsePullResponse(parseEnvelope(readVector(file))).items) });

test('the hardware report from the vectors names system, baseboard, BIOS, processor, memory and storage', () => {
  const classes = {
    CIM_ComputerSystemPackage: pull('cim/computer/systempackage/pull.xml'),
    CIM_Chassis: pull('cim/chassis/pull.xml'),
    CIM_Card: pull('cim/card/pull.xml'),
    CIM_BIOSElement: pull('cim/bios/element/pull.xml'),
    CIM_Processor: pull('cim/physical/processor/pull.xml'),
    CIM_PhysicalMemory: pull('cim/physical/memory/pull.xml'),
    CIM_MediaAccessDevice: pull('cim/mediaaccess/pull.xml'),
    CIM_Chip: pull('cim/chip/pull.xml'),
    CIM_PhysicalPackage: { ok: false as const, error: { code: 'AMT_ERR_FAULT' as const, message: 'DestinationUnreachable' } },
  };
  const report = hardwareReport('dev-1', classes, summarizeHardware(classes), 'ignored-when-the-guid-is-read', new Date('2026-01-02T03:04:05Z'));
  assert.equal(report.readAt, '2026-01-02T03:04:05.000Z');
  // PlatformGUID 13AEE355D2BFBB6117A088AEDD7037EA, its first three fields little-endian as SMBIOS stores them.
  assert.deepEqual(report.system, { manufacturer: 'Intel(R) Client Systems', model: 'NUC9V7QNX', serialNumber: 'JRQN0243007J', version: 'K47174-402', uuid: '55e3ae13-bfd2-61bb-17a0-88aedd7037ea' });
  assert.equal(report.baseboard?.model, 'NUC9V7QNB');
  assert.equal(report.bios?.version, 'QNCFLX70.0054.2020.0810.2227');
  assert.equal(report.processors[0]?.model, 'Intel(R) Core(TM) i7-9850H CPU @ 2.60GHz');
  assert.deepEqual(report.memory.map((m) => m.capacityBytes), [17179869184, 17179869184]);
  assert.equal(report.storage.length, 2);
  assert.deepEqual(report.unavailable, [{ className: 'CIM_PhysicalPackage', reason: 'DestinationUnreachable' }]);
});

test('a device without a readable platform GUID keeps the UUID the scan learned', () => {
  const classes = { CIM_Chassis: pull('cim/chassis/pull.xml') };
  assert.equal(hardwareReport('dev-1', classes, summarizeHardware(classes), 'known-uuid').system?.uuid, 'known-uuid');
  assert.equal(hardwareReport('dev-1', {}, summarizeHardware({}), null).system, null);
});

test('event log records from the vectors decode into time, source, severity and a readable description', () => {
  const page = decodeRecordsPage(parseMethodOutput(parseEnvelope(readVector('amt/messagelog/getrecords.xml')), 'GetRecords'));
  const events = page.records.map((r) => monitorEvent(decodeEventRecord(r)!));
  assert.deepEqual(
    events.map(({ time, source, severity, description }) => ({ time, source, severity, description })),
    [
      { time: '2024-01-06T03:26:27.000Z', source: 'Intel(r) ME', severity: 'Critical', description: 'Authentication failed 10 times; the system may be under attack' },
      { time: '2023-09-13T00:45:22.000Z', source: 'BIOS', severity: 'Monitor', description: 'System firmware progress: PCI resource configuration' },
      { time: '2023-09-13T00:45:22.000Z', source: 'BIOS', severity: 'Monitor', description: 'System firmware progress: PCI resource configuration' },
    ],
  );
  assert.equal(events[0]!.eventData, 'aa0a000000000000');
  assert.equal(events[0]!.sensorType, 0x06);
});

test('records of sensor types without a table keep the generic description', () => {
  const record = (sensorType: number, offset: number): EventRecord => {
    const bytes = Buffer.alloc(21);
    bytes.writeUInt32LE(1_700_000_000, 0);
    bytes[5] = sensorType;
    bytes[7] = offset;
    bytes[9] = 0x02;
    bytes[11] = 0x17;
    return decodeEventRecord(bytes.toString('base64'))!;
  };
  assert.equal(monitorEvent(record(0x22, 5)).description, 'ACPI power state: S5/G2 soft-off');
  assert.equal(monitorEvent(record(0x1d, 1)).description, 'System boot: Initiated by hard reset');
  assert.equal(monitorEvent(record(0x01, 3)).description, record(0x01, 3).description);
  assert.equal(monitorEvent(record(0x22, 5)).source, 'System chassis');
});
