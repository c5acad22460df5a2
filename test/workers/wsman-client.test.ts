/**
 * The WS-Management client against simulated devices on loopback: every read, multi-page Pull, Put,
 * faults, Digest with nonce reuse, wrong password and lockout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DigestNonceCache } from '../../workers/amt/digest-nonce-cache.js';
import { AmtError } from '../../workers/amt/errors.js';
import { createDeviceTransport, type DeviceTransport } from '../../workers/amt/http-transport.js';
import { WsmanClient } from '../../workers/amt/wsman-client.js';
import { readFirmwareVersion } from '../../workers/amt/reads/firmware.js';
import { readProvisioning } from '../../workers/amt/reads/provisioning.js';
import { readGeneralSettings } from '../../workers/amt/reads/general-settings.js';
import { readPlatformUuid } from '../../workers/amt/reads/uuid.js';
import { readPowerState } from '../../workers/amt/reads/power-state.js';
import { requestPowerStateChange } from '../../workers/amt/reads/power-change.js';
import { readHardwareInventory } from '../../workers/amt/reads/hardware-inventory.js';
import { readEventLog } from '../../workers/amt/reads/event-log.js';
import { writeRedirectionFeatures } from '../../workers/amt/reads/redirection-features.js';
import { textOf } from '../../workers/amt/wsman-parse.js';
import { startFleet, type Fleet, type SimDevice } from '../sim/index.js';
import { ADMIN, FAST_TIMEOUTS, WRONG } from './helpers.js';

let fleet: Fleet;
const open: DeviceTransport[] = [];

function clientFor(device: SimDevice, credentials = ADMIN, cache = new DigestNonceCache()): WsmanClient {
  const transport = createDeviceTransport({ host: device.address, port: 16992, tls: false, timeouts: FAST_TIMEOUTS, maxResponseBytes: 1 << 20 });
  open.push(transport);
  return new WsmanClient({ transport, credentials, nonceCache: cache });
}

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<AmtError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AmtError, `expected AmtError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}`);
}

before(async () => {
  // pageSize 2: CIM_SoftwareIdentity (11 items) takes 6 Pulls.
  fleet = await startFleet({ count: 8, base: '127.20.1.1', rmcpPort: 0, pageSize: 2, seed: 'client', lockoutMs: 2_000, eventLogRecords: 9, provisioningStates: [2, 1, 0] });
});
after(async () => {
  await Promise.all(open.map((t) => t.close()));
  await fleet?.stop();
});

describe('reads against a simulated device', () => {
  it('reads firmware, provisioning, hostname, domain and UUID as the device holds them', async () => {
    const device = fleet.devices[0]!;
    const client = clientFor(device);
    const [major, minor, hotfix] = device.config.firmwareVersion.split('.');
    assert.equal(await readFirmwareVersion(client), `${major}.${minor}.${hotfix}`);
    assert.deepEqual(await readProvisioning(client), {
      provisioningState: 2,
      provisioningStateName: 'POST',
      provisioningMode: device.config.provisioningMode,
      provisioningModeName: device.config.provisioningMode === 1 ? 'ACM' : 'CCM',
    });
    assert.deepEqual(await readGeneralSettings(client), { hostName: device.config.hostname, domainName: 'sim.example', digestRealm: device.config.realm });
    assert.equal(await readPlatformUuid(client), device.config.uuid);
  });

  it('reads in- and pre-provisioning states', async () => {
    assert.equal((await readProvisioning(clientFor(fleet.devices[1]!))).provisioningStateName, 'IN');
    assert.equal((await readProvisioning(clientFor(fleet.devices[2]!))).provisioningStateName, 'PRE');
  });

  it('follows Enumerate/Pull across several pages to the end', async () => {
    const device = fleet.devices[3]!;
    const client = clientFor(device);
    const before = device.counters().requests;
    const items = await client.enumerate('CIM_SoftwareIdentity');
    assert.equal(items.length, 11);
    assert.deepEqual(items.map((i) => textOf(i.properties['InstanceID'])).slice(0, 4), ['Flash', 'Netstack', 'AMTApps', 'AMT']);
    // 401 + Enumerate + 6 Pulls of at most 2 items.
    assert.equal(device.counters().requests - before, 8);
  });

  it('reads and changes the power state', async () => {
    const device = fleet.devices[4]!;
    const client = clientFor(device);
    assert.deepEqual(await readPowerState(client), { powerState: 2, availableRequestedPowerStates: [10, 8, 5, 11, 4, 7, 14, 12] });
    assert.deepEqual(await requestPowerStateChange(client, 8), { returnValue: 0, ok: true });
    assert.equal(device.state.powerState, 8);
    assert.deepEqual(await readPowerState(client), { powerState: 8, availableRequestedPowerStates: [2] });
    assert.deepEqual(await requestPowerStateChange(client, 8), { returnValue: 2, ok: false });
    assert.deepEqual(await requestPowerStateChange(client, 2), { returnValue: 0, ok: true });
    assert.equal(device.state.powerState, 2);
  });

  it('reads the hardware inventory classes and the event log across pages', async () => {
    const device = fleet.devices[5]!;
    const client = clientFor(device);
    const inventory = await readHardwareInventory(client);
    assert.equal(Object.keys(inventory).length, 9);
    for (const [cls, entry] of Object.entries(inventory)) assert.ok(entry.ok && entry.items.length > 0, cls);
    const chassis = inventory.CIM_Chassis;
    assert.ok(chassis?.ok);
    assert.equal(chassis.items[0]!.properties['SerialNumber'], `JR${device.config.serial}`);
    const records = await readEventLog(client);
    assert.equal(records.length, 9);
    const times = records.map((r) => r.timestamp);
    assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
  });

  it('puts AMT_GeneralSettings and reads the change back', async () => {
    const device = fleet.devices[6]!;
    const client = clientFor(device);
    const item = await client.put('AMT_GeneralSettings', { HostName: 'renamed', DomainName: 'corp.example' });
    assert.equal(item?.properties['HostName'], 'renamed');
    assert.deepEqual(await readGeneralSettings(client), { hostName: 'renamed', domainName: 'corp.example', digestRealm: device.config.realm });
  });

  it('takes a Put answered with an empty Body (as some firmware does, wsman-vectors amt/mps/put.xml) as done', async () => {
    const device = fleet.devices[7]!;
    device.setMisbehaviour('empty-put-answers');
    try {
      const client = clientFor(device);
      assert.equal(await client.put('AMT_GeneralSettings', { HostName: 'quiet-put', DomainName: 'corp.example' }), null);
      assert.equal((await readGeneralSettings(client)).hostName, 'quiet-put');
      const consent = await writeRedirectionFeatures(client, { optInRequired: 1 });
      assert.equal(consent.optInRequired, 1);
      assert.equal(device.redirection.optInRequired, 1);
    } finally {
      device.setMisbehaviour('none');
    }
  });

  it('turns the 400 Fault for an unknown class into AMT_ERR_FAULT with subcode and reason', async () => {
    const error = await rejectsWith(clientFor(fleet.devices[0]!).get('CIM_NoSuchClass'), 'AMT_ERR_FAULT');
    assert.equal(error.detail.subcode, 'DestinationUnreachable');
    assert.equal(error.detail.status, 400);
    assert.match(error.detail.reason ?? '', /No route can be determined/);
  });

  it('reports an unknown enumeration context as a fault, not a hang', async () => {
    const client = clientFor(fleet.devices[0]!);
    const { pullRequest } = await import('../../workers/amt/wsman-envelope.js');
    const error = await rejectsWith(client.send(pullRequest('CIM_SoftwareIdentity', 'x', 'DEADBEEF-0000', 5)), 'AMT_ERR_FAULT');
    assert.equal(error.detail.subcode, 'InvalidEnumerationContext');
  });
});

describe('Digest against a simulated device', () => {
  it('answers one 401 per device, not one per request, reusing the nonce with increasing nc', async () => {
    const device = fleet.devices[7]!;
    device.resetCounters();
    const cache = new DigestNonceCache();
    for (let i = 0; i < 3; i++) {
      const client = clientFor(device, ADMIN, cache);
      await readProvisioning(client);
      await readGeneralSettings(client);
    }
    const c = device.counters();
    assert.equal(c.unauthorized, 1);
    assert.equal(c.requests, 7);
    assert.equal(c.authFailures, 0);
  });

  it('re-authenticates once when the device forgets the nonce', async () => {
    const device = fleet.devices[7]!;
    const cache = new DigestNonceCache();
    const client = clientFor(device, ADMIN, cache);
    await readProvisioning(client);
    device.resetCounters();
    device.expireNonces();
    assert.equal((await readProvisioning(client)).provisioningStateName, 'IN');
    assert.deepEqual([device.counters().unauthorized, device.counters().requests, device.counters().authFailures], [1, 2, 0]);
  });

  it('reports a wrong password as AMT_ERR_UNAUTHORIZED after exactly one failed login', async () => {
    const device = fleet.devices[0]!;
    device.resetCounters();
    const client = clientFor(device, WRONG);
    const error = await rejectsWith(readProvisioning(client), 'AMT_ERR_UNAUTHORIZED');
    assert.doesNotMatch(error.message, /not-the-password/);
    assert.equal(client.failedLogins, 1);
    assert.deepEqual([device.counters().authFailures, device.counters().unauthorized], [1, 2]);
  });

  it('locks out after 10 failed logins, refusing even the right password with its lockout page, until the lockout ends', async () => {
    const device = fleet.devices[1]!;
    device.unlock();
    const cache = new DigestNonceCache();
    for (let i = 0; i < 10; i++) await rejectsWith(readProvisioning(clientFor(device, WRONG, cache)), 'AMT_ERR_UNAUTHORIZED');
    assert.equal(device.lockedOut, true);
    await rejectsWith(readProvisioning(clientFor(device, ADMIN, cache)), 'AMT_ERR_LOCKED_OUT');
    assert.ok(device.counters().lockedRefusals >= 1);
    for (let waited = 0; device.lockedOut && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
    assert.equal(device.lockedOut, false);
    assert.equal((await readProvisioning(clientFor(device, ADMIN, cache))).provisioningStateName, 'IN');
  });
  it('refuses an answer that never asked for authentication: a 200 to the unsigned first request is AMT_ERR_NO_CHALLENGE, and no Digest response is sent', async () => {
    const device = fleet.devices[2]!;
    device.setMisbehaviour('no-auth');
    try {
      device.resetCounters();
      const error = await rejectsWith(readProvisioning(clientFor(device)), 'AMT_ERR_NO_CHALLENGE');
      assert.match(error.message, /without asking for authentication/);
      assert.equal(error.detail.status, 200);
      assert.deepEqual([device.counters().requests, device.counters().authAttempts], [1, 0]);
    } finally {
      device.setMisbehaviour('none');
    }
  });
});
