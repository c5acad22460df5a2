/**
 * A device target with a `channel` (how a CIRA tunnel is reached): the task opens its connection
 * through the channel, never to `address`; TLS runs inside it and pins the device's certificate; a
 * channel that fails or never opens is a connect error within the connect bound; and the pool runs
 * such a task, whose input cannot be cloned to a worker, on the calling thread with cancellation.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import interrogate from '../../workers/tasks/interrogate.js';
import type { DeviceChannel } from '../../workers/amt/device-target.js';
import { createWorkerPool } from '../../core/pool/worker-pool.js';
import { certificatePair, startFleet, type Fleet } from '../sim/index.js';
import { ADMIN, directTools, FAST_TIMEOUTS, powerRead } from './helpers.js';

/** A loopback address where nothing listens: a target's address that must not be used when it has a channel. */
const NOWHERE = '127.20.11.250';
let fleet: Fleet;
before(async () => {
  fleet = await startFleet({ count: 2, base: '127.20.11.1', rmcpPort: 0, tlsEvery: 2, seed: 'channel' });
});
after(() => fleet?.stop());

/** A channel that is a loopback TCP connection to the device's port, counting its opens. */
function loopbackChannel(address: string, port: number): DeviceChannel & { opened: number } {
  const channel = {
    key: `test-channel:${port}`,
    opened: 0,
    connect: () =>
      new Promise<Duplex>((resolve, reject) => {
        channel.opened++;
        const socket = connect({ host: address, port }, () => resolve(socket));
        socket.once('error', reject);
      }),
  };
  return channel;
}

describe('a device target with a channel', () => {
  it('reads through the channel, not at the address', async () => {
    const device = fleet.devices[0]!;
    const channel = loopbackChannel(device.address, 16992);
    const out = await powerRead({ target: { address: NOWHERE, port: 16992, tls: false, timeouts: FAST_TIMEOUTS, channel }, credential: ADMIN }, directTools());
    assert.equal(out.ok, true, JSON.stringify(out));
    assert.equal(out.ok && out.powerState, 2);
    assert.ok(channel.opened >= 1);
  });

  it('runs TLS inside the channel and reports the device certificate for pinning', async () => {
    const device = fleet.devices[1]!;
    const channel = loopbackChannel(device.address, 16993);
    const out = await interrogate({ address: NOWHERE, ports: { http: 16993, https: 16993, rmcp: 0 }, tls: true, credential: ADMIN, timeouts: FAST_TIMEOUTS, channel }, directTools());
    assert.equal(out.authStatus, 'ok', JSON.stringify(out.error));
    assert.equal(out.tlsFingerprint, certificatePair('a').fingerprint256);
    assert.equal(out.hostname, device.config.hostname);
  });

  it('a channel that cannot open is a connect error naming the channel', async () => {
    const channel: DeviceChannel = { key: 'test-channel:refused', connect: () => Promise.reject(Object.assign(new Error('no tunnel'), { code: 'GW_ERR_CIRA_NOT_CONNECTED' })) };
    const out = await powerRead({ target: { address: NOWHERE, port: 16992, tls: false, timeouts: FAST_TIMEOUTS, channel }, credential: ADMIN }, directTools());
    assert.equal(out.ok, false);
    assert.equal(!out.ok && out.error.code, 'AMT_ERR_CONNECT');
    assert.match(!out.ok ? out.error.message : '', /test-channel:refused/);
  });

  it('a channel that never opens fails within the connect bound', async () => {
    let signal: AbortSignal | undefined;
    const channel: DeviceChannel = {
      key: 'test-channel:silent',
      connect: (given) => {
        signal = given;
        return new Promise<Duplex>((_, reject) => given?.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
      },
    };
    const started = performance.now();
    const out = await powerRead({ target: { address: NOWHERE, port: 16992, tls: false, timeouts: { ...FAST_TIMEOUTS, connectMs: 300 }, channel }, credential: ADMIN }, directTools());
    assert.equal(!out.ok && out.error.code, 'AMT_ERR_CONNECT');
    assert.match(!out.ok ? out.error.message : '', /timed out/);
    assert.ok(signal?.aborted, 'the channel was told to give up');
    assert.ok(performance.now() - started < 3_000);
  });
});

describe('WorkerPool.runInProcess', () => {
  const pool = createWorkerPool({ threads: 1, concurrentTasksPerWorker: 1, maxQueue: 1, idleTimeoutMs: 1_000 });
  after(() => pool.close());

  it('runs a task whose input holds a live channel on this thread', async () => {
    const device = fleet.devices[0]!;
    const channel = loopbackChannel(device.address, 16992);
    const out = await pool.runInProcess('device-task', { target: { address: NOWHERE, port: 16992, tls: false, timeouts: FAST_TIMEOUTS, channel }, credential: ADMIN, digest: null, task: 'power-read', input: {} });
    assert.equal(out.ok, true, JSON.stringify(out));
  });

  it('cancels it through the cancel token, as in a worker', async () => {
    const device = fleet.devices[0]!;
    device.setMisbehaviour('stall');
    try {
      const cancel = pool.createCancelToken();
      const channel = loopbackChannel(device.address, 16992);
      setTimeout(() => cancel.cancel(), 200);
      const out = await pool.runInProcess('device-task', { target: { address: NOWHERE, port: 16992, tls: false, timeouts: { connectMs: 2_000, firstByteMs: 20_000, totalMs: 20_000 }, channel }, credential: ADMIN, digest: null, task: 'power-read', input: {} }, { cancel });
      assert.equal(!out.ok && out.error.code, 'AMT_ERR_CANCELLED');
    } finally {
      device.setMisbehaviour('none');
    }
  });
});
