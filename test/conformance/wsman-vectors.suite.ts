/**
 * Conformance suite (`npm run test:conformance`, run by .ci/run; not part of `npm test`): the
 * published WS-Management vectors (the folder AMTGW_WSMAN_VECTORS names) all parse as
 * envelopes, and every file relevant to the gateway's reads decodes to the values it holds.
 * Skips when the vectors are absent, e.g. in a clone with nothing beside it.
 */
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
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
import { allVectorFiles, missingVectors, readVector, vectorsAvailable } from './vectors.js';

const env = (file: string) => parseEnvelope(readVector(file));
const pullItems = (file: string) => parsePullResponse(env(file)).items;

if (!vectorsAvailable()) {
  test('the WS-Management vectors', (t) => missingVectors(t));
} else {
  describe('every vector file', () => {
    const files = allVectorFiles();
    it('finds the vectors folder', () => assert.ok(files.length > 150, `only ${files.length} vector files`));
    for (const file of files) {
      it(`parses ${file} as a SOAP envelope without a fault`, () => {
        const parsed = env(file);
        assert.equal(faultOf(parsed), null);
        // Delete and some Put responses legitimately carry an empty Body.
        if (!/\/(delete|put)\.xml$/.test(file)) assert.ok(Object.keys(parsed.body).length > 0, 'empty body');
      });
    }
  });

  describe('enumeration vectors', () => {
    const enumerateFiles = allVectorFiles().filter((f) => f.endsWith('/enumerate.xml'));
    for (const file of enumerateFiles) {
      it(`reads the enumeration context of ${file}`, () => {
        const page = parseEnumerateResponse(env(file));
        assert.match(page.context ?? '', /^[0-9A-F-]{8,}/);
        assert.equal(page.endOfSequence, false);
      });
    }
    it('reads a Pull page without EndOfSequence as unfinished (cim/chip/pull.xml)', () => {
      const page = parsePullResponse(env('cim/chip/pull.xml'));
      assert.equal(page.endOfSequence, false);
      assert.equal(page.context, 'D4020000-0000-0000-0000-000000000000');
      assert.equal(page.items.length, 1);
    });
    it('reads the header fields independent of prefixes', () => {
      const parsed = env('cim/software/identity/pull.xml');
      assert.equal(parsed.header.action, 'http://schemas.xmlsoap.org/ws/2004/09/enumeration/PullResponse');
      assert.equal(parsed.header.relatesTo, '1');
      assert.equal(parsed.header.resourceUri, 'http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_SoftwareIdentity');
    });
  });

  describe('firmware version (CIM_SoftwareIdentity)', () => {
    it('takes VersionString of InstanceID AMT from the pull', () => {
      const items = pullItems('cim/software/identity/pull.xml');
      assert.equal(items.length, 11);
      assert.equal(decodeFirmwareVersion(items), '12.0.67');
    });
    it('finds no AMT version in a Get of another instance', () => {
      const item = parseInstance(env('cim/software/identity/get.xml'), 'CIM_SoftwareIdentity');
      assert.equal(decodeFirmwareVersion([item]), null);
    });
  });

  describe('provisioning (AMT_SetupAndConfigurationService)', () => {
    for (const file of ['amt/setupandconfiguration/get.xml', 'amt/setupandconfiguration/pull.xml']) {
      it(`decodes post-provisioning in admin control mode from ${file}`, () => {
        const props = file.endsWith('get.xml') ? parseInstance(env(file), 'AMT_SetupAndConfigurationService').properties : pullItems(file)[0]!.properties;
        assert.deepEqual(decodeProvisioning(props), { provisioningState: 2, provisioningStateName: 'POST', provisioningMode: 1, provisioningModeName: 'ACM' });
      });
    }
    it('decodes the UUID of GetUuid and refuses the bad one', () => {
      assert.equal(decodeGetUuidOutput(parseMethodOutput(env('amt/setupandconfiguration/getuuid.xml'), 'GetUuid').properties), '55e3ae13-bfd2-61bb-17a0-88aedd7037ea');
      assert.equal(decodeGetUuidOutput(parseMethodOutput(env('amt/setupandconfiguration/getuuid-bad.xml'), 'GetUuid').properties), null);
    });
  });

  describe('hostname (AMT_GeneralSettings)', () => {
    it('decodes hostname, domain and realm from the Get (spaces in the declaration and attributes)', () => {
      const props = parseInstance(env('amt/general/get.xml'), 'AMT_GeneralSettings').properties;
      assert.deepEqual(decodeGeneralSettings(props), { hostName: 'Test Host Name', domainName: 'Test Domain Name', digestRealm: 'Digest:F3EB554784E729164447A89F60B641C5' });
    });
    it('reads empty hostname and domain as null from the pull', () => {
      assert.deepEqual(decodeGeneralSettings(pullItems('amt/general/pull.xml')[0]!.properties), {
        hostName: null,
        domainName: null,
        digestRealm: 'Digest:6EE8C61BA74893E059F032EA919D699E',
      });
    });
  });

  describe('platform UUID (CIM_ComputerSystemPackage)', () => {
    it('decodes PlatformGUID in SMBIOS byte order, the same UUID as GetUuid gives', () => {
      assert.equal(decodeComputerSystemPackage(parseInstance(env('cim/computer/systempackage/get.xml'), 'CIM_ComputerSystemPackage').properties), '55e3ae13-bfd2-61bb-17a0-88aedd7037ea');
      assert.equal(decodeComputerSystemPackage(pullItems('cim/computer/systempackage/pull.xml')[0]!.properties), '55e3ae13-bfd2-61bb-17a0-88aedd7037ea');
    });
  });

  describe('power', () => {
    it('decodes power state and the offered changes (CIM_ServiceAvailableToElement)', () => {
      assert.deepEqual(decodePowerState(pullItems('cim/service/availabletoelement/pull.xml')), { powerState: 2, availableRequestedPowerStates: [10, 8, 5, 11, 4, 7, 14, 12] });
    });
    it('decodes ReturnValue 0 of RequestPowerStateChange as success', () => {
      const output = parseMethodOutput(env('cim/power/managementservice/requestpowerstatechange.xml'), 'RequestPowerStateChange');
      assert.deepEqual(decodePowerChange(output), { returnValue: 0, ok: true });
    });
  });

  describe('event log (AMT_MessageLog)', () => {
    it('decodes PositionToFirstRecord', () => {
      const out = parseMethodOutput(env('amt/messagelog/positiontofirstrecord.xml'), 'PositionToFirstRecord');
      assert.equal(out.returnValue, 0);
      assert.equal(out.properties['IterationIdentifier'], '1');
    });
    it('decodes GetRecords and each 21-byte record', () => {
      const page = decodeRecordsPage(parseMethodOutput(env('amt/messagelog/getrecords.xml'), 'GetRecords'));
      assert.equal(page.noMoreRecords, true);
      assert.equal(page.iterationIdentifier, '3');
      assert.equal(page.records.length, 3);
      const first = decodeEventRecord(page.records[0]!)!;
      assert.equal(first.timestamp, 0x6598c863);
      assert.equal(first.time, '2024-01-06T03:26:27.000Z');
      assert.equal(first.eventSensorType, 0x06);
      assert.equal(first.eventType, 0x6f);
      assert.equal(first.severity, 'Critical');
      assert.equal(first.entity, 0x26);
      assert.equal(first.eventData.length, 8);
      const second = decodeEventRecord(page.records[1]!)!;
      assert.equal(second.eventSensorType, 0x0f);
      assert.equal(second.entityName, 'BIOS');
    });
    it('reads the log instance from Get and Pull', () => {
      assert.equal(parseInstance(env('amt/messagelog/get.xml'), 'AMT_MessageLog').properties['CurrentNumberOfRecords'], '390');
      assert.equal(pullItems('amt/messagelog/pull.xml')[0]!.properties['MaxRecordSize'], '21');
    });
  });

  describe('hardware inventory classes', () => {
    const files: Record<string, string> = {
      CIM_ComputerSystemPackage: 'cim/computer/systempackage/pull.xml',
      CIM_Chassis: 'cim/chassis/pull.xml',
      CIM_Card: 'cim/card/pull.xml',
      CIM_BIOSElement: 'cim/bios/element/pull.xml',
      CIM_Processor: 'cim/physical/processor/pull.xml',
      CIM_PhysicalMemory: 'cim/physical/memory/pull.xml',
      CIM_MediaAccessDevice: 'cim/mediaaccess/pull.xml',
      CIM_PhysicalPackage: 'cim/physical/package/pull.xml',
      CIM_Chip: 'cim/chip/pull.xml',
    };
    const inventory = Object.fromEntries(Object.entries(files).map(([cls, file]) => [cls, { ok: true as const, items: toInventoryItems(pullItems(file)) }]));
    it('flattens every class, keeping repeated and structured properties as text', () => {
      assert.equal(inventory['CIM_PhysicalMemory']!.items.length, 2);
      assert.equal(inventory['CIM_BIOSElement']!.items[0]!.properties['ReleaseDate'], '2020-08-10T00:00:00Z');
      assert.equal(inventory['CIM_PhysicalPackage']!.items[0]!.className, 'CIM_Card');
    });
    it('summarises system, baseboard, BIOS, processor, memory and storage', () => {
      const summary = summarizeHardware(inventory);
      assert.deepEqual(summary.system, { manufacturer: 'Intel(R) Client Systems', model: 'NUC9V7QNX', serialNumber: 'JRQN0243007J', version: 'K47174-402' });
      assert.equal(summary.baseboard?.model, 'NUC9V7QNB');
      assert.deepEqual(summary.bios, { manufacturer: 'Intel Corp.', version: 'QNCFLX70.0054.2020.0810.2227', releaseDate: '2020-08-10T00:00:00Z' });
      assert.deepEqual(summary.processors, [{ model: 'Intel(R) Core(TM) i7-9850H CPU @ 2.60GHz', manufacturer: 'Intel(R) Corporation', maxClockSpeedMhz: 8300, currentClockSpeedMhz: 2400 }]);
      assert.deepEqual(
        summary.memory.map((m) => [m.bankLabel, m.capacityBytes, m.partNumber]),
        [
          ['BANK 0', 17179869184, 'CT16G4SFD824A.M16FE'],
          ['BANK 2', 17179869184, 'CT16G4SFD824A.M16FE'],
        ],
      );
      assert.deepEqual(summary.storage, [
        { deviceId: 'MEDIA DEV 0', maxMediaSizeKb: 960197124 },
        { deviceId: 'MEDIA DEV 1', maxMediaSizeKb: 500107862 },
      ]);
    });
  });
}
