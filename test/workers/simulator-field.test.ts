/** The simulator's field options: a per-device response delay, and the count of connections a device had open at once. */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { deviceConfigs } from '../sim/fleet-options.js';
import { startFleet, type Fleet } from '../sim/index.js';

describe('simulator response delay', () => {
  it('draws each device its own delay from the range, the same for the same seed, none unless asked', () => {
    const field = deviceConfigs({ count: 200, base: '127.20.9.1', seed: 'field', responseDelayMs: true });
    const delays = field.map((d) => d.responseDelayMs);
    assert.ok(delays.every((d) => d >= 50 && d <= 400), 'within AMT firmware range 50-400 ms');
    assert.ok(new Set(delays).size > 50, 'spread across the range, not one value');
    assert.deepEqual(deviceConfigs({ count: 200, base: '127.20.9.1', seed: 'field', responseDelayMs: true }).map((d) => d.responseDelayMs), delays);
    assert.notDeepEqual(deviceConfigs({ count: 200, base: '127.20.9.1', seed: 'other', responseDelayMs: true }).map((d) => d.responseDelayMs), delays);
    assert.ok(deviceConfigs({ count: 3, seed: 'field', responseDelayMs: [7, 7] }).every((d) => d.responseDelayMs === 7));
    assert.ok(deviceConfigs({ count: 3, seed: 'field' }).every((d) => d.responseDelayMs === 0));
  });
});

describe('simulator connection counting', () => {
  let fleet: Fleet;
  before(async () => {
    fleet = await startFleet({ count: 1, base: '127.20.9.1', rmcpPort: 0, responseDelayMs: [150, 150] });
  });
  after(() => fleet?.stop());

  const open = (address: string): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: address, port: 16992 }, () => resolve(socket));
      socket.once('error', reject);
    });

  it('answers after its delay and records the most connections open at once', async () => {
    const device = fleet.devices[0]!;
    const started = performance.now();
    const first = await open(device.address);
    const reply = new Promise<string>((resolve) => first.once('data', (d: Buffer) => resolve(d.toString('latin1'))));
    first.write(`GET / HTTP/1.1\r\nHost: ${device.address}\r\n\r\n`);
    assert.match(await reply, /^HTTP\/1.1 303/);
    assert.ok(performance.now() - started >= 140, 'the response waited for the device delay');
    assert.equal(device.counters().peakOpenConnections, 1);
    const second = await open(device.address);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(device.counters().peakOpenConnections, 2);
    first.destroy();
    second.destroy();
  });
});
