/**
 * The gateway's IDE-R server against the simulator's device side, without a gateway around it: the
 * device's BIOS boots a CD (volume descriptors, El Torito catalog, boot image) and a floppy from the
 * served images, its installer reads the whole medium back unchanged, a write gets DATA PROTECT,
 * data pieces stay within the device's read buffer, and heartbeats keep a quiet session open.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import { writeBootFloppy, writeBootIso, type BuiltImage } from '../../helpers/boot-images.js';
import { openRedirectionSession } from '../../../workers/amt/redirection/redirection-session.js';
import { iderBegin } from '../../../workers/amt/redirection/ider/ider-open.js';
import { IderServer } from '../../../workers/amt/redirection/ider/ider-server.js';
import { openFileMedium, type FileMedium } from '../../../workers/amt/redirection/ider/file-medium.js';
import { until } from '../../helpers/poll.js';

let fleet: Fleet;
let dir: string;
let iso: BuiltImage;
let floppy: BuiltImage;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ider-boot-'));
  iso = await writeBootIso(join(dir, 'boot.iso'), 3 * 1024 * 1024 + 2048);
  floppy = await writeBootFloppy(join(dir, 'boot.img'));
  fleet = await startFleet({ count: 2, base: '127.64.1.1', rmcpPort: 0, seed: 'ider-boot' });
});

after(async () => {
  await fleet?.stop();
  await rm(dir, { recursive: true, force: true });
});

async function serve(address: string, media: { cd?: FileMedium; floppy?: FileMedium }, options: Partial<{ heartbeatMs: number; idleMs: number }> = {}) {
  const heartbeatMs = options.heartbeatMs ?? 20_000;
  const outcome = await openRedirectionSession({ address, port: 16994, tls: false }, { id: 'test', username: 'admin', password: 'P@ssw0rd1' }, 'ider', iderBegin({ rxTimeoutMs: 30_000, heartbeatMs, attach: 'onReboot' }));
  if (!outcome.ok) throw new Error(`IDE-R to ${address}: ${outcome.error.code} ${outcome.error.message}`);
  const { stream, leftover, begun } = outcome.session;
  return new IderServer(stream, leftover, media, begun.encoder, begun.reply.readBufferSize, { heartbeatMs, silenceMs: 3 * heartbeatMs, idleMs: options.idleMs ?? 60_000, pieceBytes: 64 * 1024 });
}

test('a BIOS boots the served CD and its installer reads the whole medium back unchanged; writes get DATA PROTECT', async () => {
  const sim = fleet.devices[0]!;
  const cd = await openFileMedium(iso.path, 'cd');
  const server = await serve(sim.address, { cd });
  try {
    await until('drives attached', () => sim.redirection.iderHost.link?.attached === 'reboot');
    const findings = await sim.redirection.iderHost.boot('cd');
    assert.equal(findings.error, null);
    assert.equal(findings.booted, true);
    assert.deepEqual(findings.capacity, { blocks: iso.sizeBytes / 2048, blockSize: 2048 });
    assert.equal(findings.volume?.volumeId, 'AMTGW_BOOT');
    assert.equal(findings.volume?.bootCatalogLba, 19);
    assert.equal(findings.bootEntry?.bootable, true);
    assert.equal(findings.bootImageSha256, iso.bootSha256);
    assert.deepEqual(findings.writeSense, { key: 0x07, asc: 0x27, ascq: 0 });
    assert.equal(findings.installer?.sha256, iso.sha256);
    assert.equal(findings.installer?.stampErrors, 0);
    assert.ok(findings.largestPiece <= 8192 && findings.largestPiece > 0, `largest piece ${findings.largestPiece}`);
    // The BIOS's sequence: ready (a unit attention first), identify, capacity, mode sense, the descriptors.
    assert.deepEqual(findings.opcodes.slice(0, 6), [0x00, 0x03, 0x00, 0x12, 0x25, 0x5a]);
    assert.ok(findings.opcodes.includes(0xa8), 'the catalog read with READ(12)');
    assert.deepEqual(sim.redirection.iderHost.link?.violations, []);
    assert.equal(server.bytesServed >= iso.sizeBytes, true);
  } finally {
    server.end('deleted');
    assert.deepEqual(await server.done, { reason: 'deleted' });
    await cd.close();
  }
  await until('session closed on the device', () => sim.redirection.iderHost.link === null && !sim.redirection.open.has('ider'));
});

test('a floppy boots from its boot sector; the CD drive of the same session has no medium', async () => {
  const sim = fleet.devices[1]!;
  const fd = await openFileMedium(floppy.path, 'floppy');
  const server = await serve(sim.address, { floppy: fd });
  try {
    await until('drives attached', () => sim.redirection.iderHost.link?.attached === 'reboot');
    const findings = await sim.redirection.iderHost.boot('floppy');
    assert.equal(findings.error, null);
    assert.equal(findings.bootImageSha256, floppy.bootSha256);
    assert.equal(findings.installer?.sha256, floppy.sha256);
    const cd = await sim.redirection.iderHost.boot('cd');
    assert.equal(cd.booted, false);
    assert.match(cd.error ?? '', /no medium/);
  } finally {
    server.end('deleted');
    await server.done;
    await fd.close();
  }
});

test('heartbeats keep a session whose host asks nothing open; the idle bound then ends it with CLOSE', async () => {
  const sim = fleet.devices[0]!;
  await until('no IDE-R session open', () => !sim.redirection.open.has('ider'));
  const cd = await openFileMedium(iso.path, 'cd');
  const server = await serve(sim.address, { cd }, { heartbeatMs: 200, idleMs: 1500 });
  try {
    await until('session open', () => sim.redirection.iderHost.link !== null);
    const link = sim.redirection.iderHost.link!;
    const end = await server.done;
    assert.equal(end.reason, 'idle');
    assert.ok(link.heartbeatsReceived >= 3, `heartbeats ${link.heartbeatsReceived}`);
    await until('link closed', () => link.closed);
  } finally {
    await cd.close();
  }
});
