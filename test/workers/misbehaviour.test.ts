/**
 * A device that stalls, sends garbage, a huge body or an endless chunked stream, or is not there,
 * ends in a typed error within the configured bounds; the caller never hangs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import interrogate from '../../workers/tasks/interrogate.js';
import { startFleet, type Fleet } from '../sim/index.js';
import { ADMIN, directTools, powerRead, type PowerReadResult } from './helpers.js';

let fleet: Fleet;
before(async () => {
  fleet = await startFleet({ count: 6, base: '127.20.4.1', rmcpPort: 0, seed: 'misbehave' });
});
after(() => fleet?.stop());

const timeouts = { connectMs: 1_000, firstByteMs: 600, totalMs: 1_500 };
/** Generous slack for a loaded 2-core machine; the point is "bounded", not "fast". */
const MARGIN_MS = 3_000;

async function timed(address: string, extra: { maxResponseBytes?: number } = {}): Promise<{ out: PowerReadResult; ms: number }> {
  const started = performance.now();
  const out = await powerRead({ target: { address, port: 16992, tls: false, timeouts, ...extra }, credential: ADMIN }, directTools());
  return { out, ms: performance.now() - started };
}

function failure(out: PowerReadResult): { code: string; phase?: string } {
  assert.equal(out.ok, false, 'expected a failure');
  return out.ok ? { code: 'none' } : out.error;
}

describe('misbehaving devices', () => {
  it('a stalled device times out at the first-byte bound', async () => {
    const device = fleet.devices[0]!;
    device.setMisbehaviour('stall');
    const { out, ms } = await timed(device.address);
    assert.deepEqual(failure(out).code, 'AMT_ERR_TIMEOUT');
    assert.equal(failure(out).phase, 'first-byte');
    assert.ok(ms >= 500 && ms < timeouts.firstByteMs + MARGIN_MS, `took ${ms} ms`);
  });

  it('garbage instead of HTTP is a bad response', async () => {
    const device = fleet.devices[1]!;
    device.setMisbehaviour('garbage');
    const { out, ms } = await timed(device.address);
    assert.equal(failure(out).code, 'AMT_ERR_BAD_RESPONSE');
    assert.ok(ms < timeouts.totalMs + MARGIN_MS, `took ${ms} ms`);
  });

  it('an oversized body stops at the size limit', async () => {
    const device = fleet.devices[2]!;
    device.setMisbehaviour('oversized');
    const { out, ms } = await timed(device.address, { maxResponseBytes: 256 * 1024 });
    assert.equal(failure(out).code, 'AMT_ERR_TOO_LARGE');
    assert.ok(ms < timeouts.totalMs + MARGIN_MS, `took ${ms} ms`);
  });

  it('an endless chunked stream stops at the total bound (or the size limit)', async () => {
    const device = fleet.devices[3]!;
    device.setMisbehaviour('endless-chunks');
    const { out, ms } = await timed(device.address);
    const { code, phase } = failure(out);
    assert.ok(code === 'AMT_ERR_TIMEOUT' || code === 'AMT_ERR_TOO_LARGE', code);
    if (code === 'AMT_ERR_TIMEOUT') assert.equal(phase, 'total');
    assert.ok(ms >= 1_000 && ms < timeouts.totalMs + MARGIN_MS, `took ${ms} ms`);
  });

  it('an offline device is a connect error, and it answers again once back online', async () => {
    const device = fleet.devices[4]!;
    await device.stop();
    const { out } = await timed(device.address);
    assert.equal(failure(out).code, 'AMT_ERR_CONNECT');
    const scan = await interrogate({ address: device.address, credential: ADMIN, timeouts }, directTools());
    assert.equal(scan.authStatus, 'unreachable');
    await device.start();
    const back = await timed(device.address);
    assert.equal(back.out.ok, true);
  });

  it('a device that answers garbage is an error of the scan, never an authenticated device', async () => {
    const device = fleet.devices[1]!;
    device.setMisbehaviour('garbage');
    const out = await interrogate({ address: device.address, credential: ADMIN, timeouts }, directTools());
    assert.equal(out.authStatus, 'error');
    assert.equal(out.error?.code, 'AMT_ERR_BAD_RESPONSE');
    assert.equal(out.credentialId, null);
  });

  it('a misbehaving device recovers once it behaves', async () => {
    const device = fleet.devices[0]!;
    device.setMisbehaviour('none');
    assert.equal((await timed(device.address)).out.ok, true);
  });

  it('a cancelled task stops waiting on a stalled device', async () => {
    const device = fleet.devices[5]!;
    device.setMisbehaviour('stall');
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('cancelled')), 200);
    const started = performance.now();
    const out = await powerRead(
      { target: { address: device.address, port: 16992, tls: false, timeouts: { connectMs: 5_000, firstByteMs: 30_000, totalMs: 60_000 } }, credential: ADMIN },
      directTools(controller.signal),
    );
    assert.equal(failure(out).code, 'AMT_ERR_CANCELLED');
    assert.ok(performance.now() - started < 200 + MARGIN_MS);
  });
});
