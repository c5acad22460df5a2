/** RMCP presence: ping encoding, pong decoding, and collecting pongs from 200 simulated devices at once. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { collectPongs, pingsDue } from '../../workers/amt/rmcp-collector.js';
import { decodePresencePong, encodePresencePing } from '../../workers/amt/rmcp-codec.js';
import { startFleet, type Fleet } from '../sim/index.js';

const RMCP_PORT = 16623;

function pong(overrides: Record<number, number> = {}): Buffer {
  const b = Buffer.from('060000060000' + '11be4007001000000157' + '3ea0' + 'b1' + '02' + '8120' + '000000000000', 'hex');
  for (const [offset, value] of Object.entries(overrides)) b[Number(offset)] = value;
  return b;
}

describe('RMCP codec', () => {
  it('encodes the 12-byte presence ping of AMT-NOTES with the tag', () => {
    assert.equal(encodePresencePing(0x2a).toString('hex'), '06000006000011be802a0000');
  });
  it('decodes a pong: Intel, port, version nibbles, provisioning state, DASH bit', () => {
    assert.deepEqual(decodePresencePong(pong()), {
      tag: 7,
      oemIana: 343,
      intel: true,
      managementPort: 16032,
      version: '11.1',
      provisioningState: 2,
      provisioningStateName: 'POST',
      supportedEntities: 0x81,
      supportedInteractions: 0x20,
      dashCapable: true,
    });
  });
  it('reads the version from bytes 22-23 when byte 18 is 0 (newer firmware)', () => {
    const p = decodePresencePong(pong({ 18: 0, 22: 16, 23: 1, 16: 0x42, 17: 0x21 }))!;
    assert.equal(p.version, '16.1');
    assert.equal(p.managementPort, 16929);
  });
  it('reports port 0 (AMT present, not set up) as null and pre-provisioning', () => {
    const p = decodePresencePong(pong({ 16: 0, 17: 0, 19: 0 }))!;
    assert.equal(p.managementPort, null);
    assert.equal(p.provisioningStateName, 'PRE');
  });
  it('rejects datagrams that are not presence pongs', () => {
    assert.equal(decodePresencePong(pong().subarray(0, 20)), null);
    assert.equal(decodePresencePong(pong({ 8: 0x80 })), null);
    assert.equal(decodePresencePong(pong({ 3: 0x07 })), null);
    assert.equal(decodePresencePong(pong({ 7: 0xbf })), null);
    assert.equal(decodePresencePong(Buffer.alloc(4)), null);
  });
});

describe('ping pacing', () => {
  it('sends one sub-batch per gap on time, and after a late timer catches up 100 ms of the rate at once, as the TCP probes do', () => {
    // 31 pings per 10 ms (a batch's share of 50,000 probes a second over 16 batches).
    assert.equal(pingsDue(0, 0, 2048, 31, 10), 31);
    assert.equal(pingsDue(25, 62, 2048, 31, 10), 93);
    // A thread that did not run for 300 ms owes 31 sub-batches: it sends 10 of them (100 ms) now, the
    // rest at its next turns. Four (40 ms) let the pings of a busy thread fall behind its TCP probes.
    assert.equal(pingsDue(300, 31, 2048, 31, 10), 31 + 310);
    assert.equal(pingsDue(300, 341, 2048, 31, 10), 341 + 310);
    assert.equal(pingsDue(301, 651, 2048, 31, 10), 31 * 31);
    assert.equal(pingsDue(5_000, 2000, 2048, 31, 10), 2048);
    // Another gap: still 100 ms of the rate.
    assert.equal(pingsDue(1_000, 0, 10_000, 50, 25), 200);
  });
});

describe('pinging 200 simulated devices from one socket', () => {
  let fleet: Fleet;
  before(async () => {
    fleet = await startFleet({ count: 200, base: '127.20.3.1', rmcpPort: RMCP_PORT, tlsEvery: 5, provisioningStates: [2, 2, 2, 1, 0], seed: 'rmcp' });
  });
  after(() => fleet?.stop());

  it('decodes a pong from every device, matching what each device is', async () => {
    const addresses = fleet.devices.map((d) => d.address);
    const pongs = await collectPongs(addresses, { port: RMCP_PORT, windowMs: 5_000 });
    assert.equal(pongs.size, 200);
    for (const device of fleet.devices) {
      const p = pongs.get(device.address);
      assert.ok(p, `no pong from ${device.address}`);
      const [major, minor] = device.config.firmwareVersion.split('.');
      assert.equal(p.version, `${major}.${minor}`);
      assert.equal(p.provisioningState, device.config.provisioningState);
      assert.equal(p.intel, true);
      const expectedPort = device.config.provisioningState === 0 ? null : device.config.tls ? 16993 : 16992;
      assert.equal(p.managementPort, expectedPort);
    }
  });

  it('ignores addresses without a device and ends early once all answered', async () => {
    const started = Date.now();
    const pongs = await collectPongs(['127.20.3.1', '127.20.3.2'], { port: RMCP_PORT, windowMs: 10_000 });
    assert.equal(pongs.size, 2);
    assert.ok(Date.now() - started < 9_000, 'waited for the whole window although every device answered');
    const none = await collectPongs(['127.20.3.250'], { port: RMCP_PORT, windowMs: 200 });
    assert.equal(none.size, 0);
  });
});
