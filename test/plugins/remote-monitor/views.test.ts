/** The hardware report and the event entries decoded from the project's WS-Management fixtures (test/fixtures/wsman). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEnvelope, parseMethodOutput, parsePullResponse } from '../../../workers/amt/wsman-parse.js';
import { decodeRecordsPage } from '../../../workers/amt/reads/event-log.js';
import { decodeEventRecord, type EventRecord } from '../../../workers/amt/reads/event-record.js';
import { toInventoryItems, type ClassInventory } from '../../../workers/amt/reads/hardware-inventory.js';
import { summarizeHardware } from '../../../workers/amt/reads/hardware-summary.js';
import { hardwareReport } from '../../../plugins/remote-monitor/hardware-view.js';
import { monitorEvent } from '../../../plugins/remote-monitor/event-view.js';
import { readFixture } from '../../workers/helpers.js';

const pull = (file: string): ClassInventory => ({ ok: true, items: toInventoryItems(parsePullResponse(parseEnvelope(readFixture(file))).items) });

test('the hardware report from the fixtures names system, baseboard, BIOS, processor, memory and storage', () => {
  const classes = {
    CIM_ComputerSystemPackage: pull('computer-system-package-pull.xml'),
    CIM_Chassis: pull('chassis-pull.xml'),
    CIM_Card: pull('card-pull.xml'),
    CIM_BIOSElement: pull('bios-element-pull.xml'),
    CIM_Processor: pull('processor-pull.xml'),
    CIM_PhysicalMemory: pull('physical-memory-pull.xml'),
    CIM_MediaAccessDevice: pull('media-access-device-pull.xml'),
    CIM_Chip: pull('chip-pull.xml'),
    CIM_PhysicalPackage: { ok: false as const, error: { code: 'AMT_ERR_FAULT' as const, message: 'DestinationUnreachable' } },
  };
  const report = hardwareReport('dev-1', classes, summarizeHardware(classes), 'ignored-when-the-guid-is-read', new Date('2026-01-02T03:04:05Z'));
  assert.equal(report.readAt, '2026-01-02T03:04:05.000Z');
  // PlatformGUID 921A6C3F4E7D184BA5C02E9B8D41F706, its first three fields little-endian as SMBIOS stores them.
  assert.deepEqual(report.system, { manufacturer: 'Example Systems Inc.', model: 'EX-7420 Mini', serialNumber: 'EXS7420-00318', version: 'R2.1', uuid: '3f6c1a92-7d4e-4b18-a5c0-2e9b8d41f706' });
  assert.equal(report.baseboard?.model, 'EXB-7420');
  assert.equal(report.bios?.version, 'EXB7420.86A.0071.2024.0312.1455');
  assert.equal(report.processors[0]?.model, 'Intel(R) Core(TM) i5-1345U');
  assert.deepEqual(report.memory.map((m) => m.capacityBytes), [8589934592, 17179869184]);
  assert.equal(report.storage.length, 2);
  assert.deepEqual(report.unavailable, [{ className: 'CIM_PhysicalPackage', reason: 'DestinationUnreachable' }]);
});

test('a device without a readable platform GUID keeps the UUID the scan learned', () => {
  const classes = { CIM_Chassis: pull('chassis-pull.xml') };
  assert.equal(hardwareReport('dev-1', classes, summarizeHardware(classes), 'known-uuid').system?.uuid, 'known-uuid');
  assert.equal(hardwareReport('dev-1', {}, summarizeHardware({}), null).system, null);
});

test('event log records from the fixtures decode into time, source, severity and a readable description', () => {
  const page = decodeRecordsPage(parseMethodOutput(parseEnvelope(readFixture('message-log-get-records.xml')), 'GetRecords'));
  const events = page.records.map((r) => monitorEvent(decodeEventRecord(r)!));
  assert.deepEqual(
    events.map(({ time, source, severity, description }) => ({ time, source, severity, description })),
    [
      { time: '2025-06-02T08:15:00.000Z', source: 'Intel(r) ME', severity: 'Critical', description: 'Authentication failed 3 times; the system may be under attack' },
      { time: '2025-06-02T07:59:41.000Z', source: 'BIOS', severity: 'Monitor', description: 'System firmware progress: Starting operating system boot process' },
      { time: '2025-06-02T07:59:12.000Z', source: 'System chassis', severity: 'Information', description: 'System boot: Initiated by power up' },
    ],
  );
  assert.equal(events[0]!.eventData, 'aa03000000000000');
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
