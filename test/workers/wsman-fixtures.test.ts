/**
 * The WS-Management parser and the class decoders over the project's AMT-shaped fixtures
 * (test/fixtures/wsman): every fixture parses as an envelope, and each decodes to the values it holds.
 * The published vector set is checked by the conformance suite (test/conformance).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { faultOf } from '../../workers/amt/wsman-fault.js';
import { parseEnumerateResponse, parseEnvelope, parseInstance, parseMethodOutput, parsePullResponse } from '../../workers/amt/wsman-parse.js';
import { decodeFirmwareVersion } from '../../workers/amt/reads/firmware.js';
import { decodeProvisioning } from '../../workers/amt/reads/provisioning.js';
import { decodeGeneralSettings } from '../../workers/amt/reads/general-settings.js';
import { decodeComputerSystemPackage, decodeGetUuidOutput } from '../../workers/amt/reads/uuid.js';
import { decodePowerState } from '../../workers/amt/reads/power-state.js';
import { decodePowerChange } from '../../workers/amt/reads/power-change.js';
import { decodeRecordsPage } from '../../workers/amt/reads/event-log.js';
import { decodeEventRecord } from '../../workers/amt/reads/event-record.js';
import { toInventoryItems } from '../../workers/amt/reads/hardware-inventory.js';
import { summarizeHardware } from '../../workers/amt/reads/hardware-summary.js';
import { allFixtureFiles, readFixture } from './helpers.js';

const UUID = '3f6c1a92-7d4e-4b18-a5c0-2e9b8d41f706';
const env = (file: string) => parseEnvelope(readFixture(file));
const pullItems = (file: string) => parsePullResponse(env(file)).items;

describe('every fixture', () => {
  const files = allFixtureFiles();
  it('finds the fixtures folder', () => assert.ok(files.length >= 25, `only ${files.length} fixture files`));
  for (const file of files) {
    it(`parses ${file} as a SOAP envelope without a fault`, () => {
      const parsed = env(file);
      assert.equal(faultOf(parsed), null);
      assert.ok(Object.keys(parsed.body).length > 0, 'empty body');
    });
  }
});

describe('enumeration', () => {
  it('reads the enumeration context of an Enumerate answer', () => {
    const page = parseEnumerateResponse(env('chip-enumerate.xml'));
    assert.equal(page.context, '69010000-0000-0000-0000-000000000000');
    assert.equal(page.endOfSequence, false);
  });
  it('reads a Pull page without EndOfSequence as unfinished, keeping its context', () => {
    const page = parsePullResponse(env('chip-pull.xml'));
    assert.equal(page.endOfSequence, false);
    assert.equal(page.context, '6A010000-0000-0000-0000-000000000000');
    assert.equal(page.items.length, 1);
  });
  it('reads a Pull page with EndOfSequence as the last', () => {
    assert.equal(parsePullResponse(env('chassis-pull.xml')).endOfSequence, true);
  });
  it('reads the header fields independent of prefixes', () => {
    const parsed = env('software-identity-pull.xml');
    assert.equal(parsed.header.action, 'http://schemas.xmlsoap.org/ws/2004/09/enumeration/PullResponse');
    assert.equal(parsed.header.relatesTo, '7');
    assert.equal(parsed.header.resourceUri, 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_SoftwareIdentity');
    assert.equal(env('setup-and-configuration-get-uuid.xml').header.relatesTo, '3', 'a default-namespace envelope too');
  });
  it('keeps items of several classes apart', () => {
    assert.deepEqual(pullItems('physical-package-pull.xml').map((i) => i.className), ['CIM_Card', 'CIM_Chassis']);
  });
});

describe('firmware version (CIM_SoftwareIdentity)', () => {
  it('takes VersionString of InstanceID AMT from the pull', () => {
    const items = pullItems('software-identity-pull.xml');
    assert.equal(items.length, 10);
    assert.equal(decodeFirmwareVersion(items), '16.1.27');
  });
  it('finds no AMT version in a Get of another instance', () => {
    assert.equal(decodeFirmwareVersion([parseInstance(env('software-identity-get.xml'), 'CIM_SoftwareIdentity')]), null);
  });
});

describe('provisioning (AMT_SetupAndConfigurationService)', () => {
  it('decodes post-provisioning in admin control mode from the Get', () => {
    const props = parseInstance(env('setup-and-configuration-get.xml'), 'AMT_SetupAndConfigurationService').properties;
    assert.deepEqual(decodeProvisioning(props), { provisioningState: 2, provisioningStateName: 'POST', provisioningMode: 1, provisioningModeName: 'ACM' });
  });
  it('decodes client control mode from the Pull', () => {
    assert.deepEqual(decodeProvisioning(pullItems('setup-and-configuration-pull.xml')[0]!.properties), {
      provisioningState: 2,
      provisioningStateName: 'POST',
      provisioningMode: 4,
      provisioningModeName: 'CCM',
    });
  });
  it('decodes the UUID of GetUuid and refuses a malformed one', () => {
    assert.equal(decodeGetUuidOutput(parseMethodOutput(env('setup-and-configuration-get-uuid.xml'), 'GetUuid').properties), UUID);
    assert.equal(decodeGetUuidOutput(parseMethodOutput(env('setup-and-configuration-get-uuid-bad.xml'), 'GetUuid').properties), null);
  });
});

describe('hostname (AMT_GeneralSettings)', () => {
  it('decodes hostname, domain and realm from the Get (blanks around = in the declaration and attributes)', () => {
    const props = parseInstance(env('general-settings-get.xml'), 'AMT_GeneralSettings').properties;
    assert.deepEqual(decodeGeneralSettings(props), { hostName: 'ws-0417', domainName: 'corp.example.test', digestRealm: 'Digest:7A1C0E55B2D94F3E8C6A0B1D2E3F4A5B' });
  });
  it('reads empty hostname and domain as null from the pull', () => {
    assert.deepEqual(decodeGeneralSettings(pullItems('general-settings-pull.xml')[0]!.properties), {
      hostName: null,
      domainName: null,
      digestRealm: 'Digest:0D9B6E2A4C8F13579BDF02468ACE1357',
    });
  });
});

describe('platform UUID (CIM_ComputerSystemPackage)', () => {
  it('decodes PlatformGUID in SMBIOS byte order, the same UUID as GetUuid gives', () => {
    assert.equal(decodeComputerSystemPackage(parseInstance(env('computer-system-package-get.xml'), 'CIM_ComputerSystemPackage').properties), UUID);
    assert.equal(decodeComputerSystemPackage(pullItems('computer-system-package-pull.xml')[0]!.properties), UUID);
  });
});

describe('power', () => {
  it('decodes power state and the offered changes (CIM_AssociatedPowerManagementService)', () => {
    assert.deepEqual(decodePowerState(pullItems('associated-power-management-service-pull.xml')), { powerState: 8, availableRequestedPowerStates: [2, 5, 10, 11] });
  });
  it('decodes ReturnValue 0 of RequestPowerStateChange as success', () => {
    assert.deepEqual(decodePowerChange(parseMethodOutput(env('request-power-state-change.xml'), 'RequestPowerStateChange')), { returnValue: 0, ok: true });
  });
});

describe('event log (AMT_MessageLog)', () => {
  it('decodes PositionToFirstRecord', () => {
    const out = parseMethodOutput(env('message-log-position-to-first-record.xml'), 'PositionToFirstRecord');
    assert.equal(out.returnValue, 0);
    assert.equal(out.properties['IterationIdentifier'], '1');
  });
  it('decodes GetRecords and each 21-byte record', () => {
    const page = decodeRecordsPage(parseMethodOutput(env('message-log-get-records.xml'), 'GetRecords'));
    assert.equal(page.noMoreRecords, true);
    assert.equal(page.iterationIdentifier, '4');
    assert.equal(page.records.length, 3);
    const lockout = decodeEventRecord(page.records[0]!)!;
    assert.equal(lockout.time, '2025-06-02T08:15:00.000Z');
    assert.equal(lockout.eventSensorType, 0x06);
    assert.equal(lockout.eventType, 0x6f);
    assert.equal(lockout.severity, 'Critical');
    assert.equal(lockout.entity, 0x26);
    assert.deepEqual(lockout.eventData, [0xaa, 0x03, 0, 0, 0, 0, 0, 0]);
    const progress = decodeEventRecord(page.records[1]!)!;
    assert.equal(progress.eventSensorType, 0x0f);
    assert.equal(progress.entityName, 'BIOS');
    assert.equal(progress.severity, 'Monitor');
    assert.equal(decodeEventRecord(page.records[2]!)!.entityName, 'System chassis');
  });
  it('reads the log instance from Get and Pull', () => {
    assert.equal(parseInstance(env('message-log-get.xml'), 'AMT_MessageLog').properties['CurrentNumberOfRecords'], '57');
    assert.equal(pullItems('message-log-pull.xml')[0]!.properties['MaxRecordSize'], '21');
  });
});

describe('hardware inventory classes', () => {
  const files: Record<string, string> = {
    CIM_ComputerSystemPackage: 'computer-system-package-pull.xml',
    CIM_Chassis: 'chassis-pull.xml',
    CIM_Card: 'card-pull.xml',
    CIM_BIOSElement: 'bios-element-pull.xml',
    CIM_Processor: 'processor-pull.xml',
    CIM_PhysicalMemory: 'physical-memory-pull.xml',
    CIM_MediaAccessDevice: 'media-access-device-pull.xml',
    CIM_PhysicalPackage: 'physical-package-pull.xml',
    CIM_Chip: 'chip-pull.xml',
  };
  const inventory = Object.fromEntries(Object.entries(files).map(([cls, file]) => [cls, { ok: true as const, items: toInventoryItems(pullItems(file)) }]));
  it('flattens every class, keeping repeated and structured properties as text', () => {
    assert.equal(inventory['CIM_PhysicalMemory']!.items.length, 2);
    assert.equal(inventory['CIM_BIOSElement']!.items[0]!.properties['ReleaseDate'], '2024-03-12T00:00:00Z');
    assert.equal(inventory['CIM_PhysicalPackage']!.items[0]!.className, 'CIM_Card');
  });
  it('summarises system, baseboard, BIOS, processor, memory and storage', () => {
    const summary = summarizeHardware(inventory);
    assert.deepEqual(summary.system, { manufacturer: 'Example Systems Inc.', model: 'EX-7420 Mini', serialNumber: 'EXS7420-00318', version: 'R2.1' });
    assert.equal(summary.baseboard?.model, 'EXB-7420');
    assert.deepEqual(summary.bios, { manufacturer: 'Example Systems Inc.', version: 'EXB7420.86A.0071.2024.0312.1455', releaseDate: '2024-03-12T00:00:00Z' });
    assert.deepEqual(summary.processors, [{ model: 'Intel(R) Core(TM) i5-1345U', manufacturer: 'Intel(R) Corporation', maxClockSpeedMhz: 4700, currentClockSpeedMhz: 1600 }]);
    assert.deepEqual(
      summary.memory.map((m) => [m.bankLabel, m.capacityBytes, m.partNumber, m.speedMhz]),
      [
        ['Controller0-ChannelA-DIMM0', 8589934592, 'M471A1K43DB1-CWE', 3200],
        ['Controller1-ChannelA-DIMM0', 17179869184, 'M471A2K43EB1-CWE', 3200],
      ],
    );
    assert.deepEqual(summary.storage, [
      { deviceId: 'MEDIA DEV 0', maxMediaSizeKb: 1000204886 },
      { deviceId: 'MEDIA DEV 1', maxMediaSizeKb: 256060514 },
    ]);
  });
});
