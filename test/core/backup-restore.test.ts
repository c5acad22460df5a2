/**
 * `amt-gateway backup` from a gateway that is scanning a simulated fleet, `amt-gateway restore`
 * into a fresh data directory, and a gateway started there: every device, credential and user is
 * there. A backup under another master key, a damaged backup and a non-empty target are refused
 * and change nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { startFleet } from '../sim/fleet.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway-harness.js';
import { writeBackup } from '../../core/backup/backup-client.js';
import { restoreBackup } from '../../core/backup/restore.js';
import { PACKAGE_VERSION } from '../../core/assets/package-root.js';
import { SIM_AMT_SETTINGS, SIM_RMCP_PORT, createCredential, startScan, waitForScan } from '../helpers/scan-helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', join(ROOT, 'core/main.ts'), ...args], { cwd: ROOT, env: { ...process.env, AMTGW_MASTER_KEY: '', ...env }, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function siteFile(dataDir: string): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'amtgw-site-')), 'site.json');
  await writeFile(file, JSON.stringify({ dataDir }));
  return file;
}

const list = async (gw: TestGateway, path: string, token: string) => {
  const res = await gw.request('GET', path, { token });
  assert.equal(res.status, 200, path);
  return (await res.json()) as Array<Record<string, unknown>>;
};

test('a backup taken during a scan restores on a fresh data directory with every device, credential and user', async () => {
  const fleet = await startFleet({ count: 120, base: '127.114.0.1', rmcpPort: SIM_RMCP_PORT, seed: 'backup' });
  const masterKey = randomBytes(32).toString('base64');
  const logs: string[] = [];
  const gw = await startTestGateway({ plugins: ['rest-api'], masterKey, logs, overrides: SIM_AMT_SETTINGS });
  const dirs: string[] = [];
  const fresh = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'amtgw-restore-'));
    dirs.push(dir);
    return dir;
  };
  try {
    const token = await gw.login();
    await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1' });
    for (let i = 0; i < 4; i++) await createCredential(gw, token, { name: `extra-${i}`, username: `u${i}`, password: `Extra-Secret-${i}` });
    for (let i = 0; i < 3; i++) await gw.userWith(['devices:read'], `operator-${i}`);
    const first = await startScan(gw, token, { range: '127.114.0.0/25' });
    await waitForScan(gw, token, first.id, 120_000);
    const devicesBefore = await list(gw, '/api/devices', token);
    assert.ok(devicesBefore.length >= 100, `the first scan found the fleet (${devicesBefore.length})`);
    const credentials = await list(gw, '/api/credentials', token);
    const users = await list(gw, '/api/users', token);

    const second = await startScan(gw, token, { range: '127.114.0.0/24' });
    const out = join(await fresh(), 'gateway.backup');
    // The CLI's own code (backup-client.ts) over the admin socket, in this process: spawning the CLI
    // takes seconds on a loaded machine, long enough for the scan to end first.
    const running = writeBackup(gw.dataDir, out, PACKAGE_VERSION);
    // The snapshot is taken when the gateway starts the backup: the scan must be running then.
    let scanAtSnapshot: { status: string; scanned: number } | undefined;
    for (let i = 0; i < 1200 && !scanAtSnapshot; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (logs.some((l) => l.includes('backup started over the admin socket'))) {
        scanAtSnapshot = (await (await gw.request('GET', `/api/scan/${second.id}`, { token })).json()) as { status: string; scanned: number };
      }
    }
    const backup = await running;
    assert.equal(scanAtSnapshot?.status, 'running', 'the backup was taken while the scan ran');
    assert.equal(backup.via, 'gateway');
    assert.match(backup.trailer.sha256, /^[0-9a-f]{64}$/);
    assert.equal((await stat(out)).mode & 0o777, 0o600);
    const text = await readFile(out, 'utf8');
    assert.equal(text.includes('Extra-Secret-0') || text.includes('P@ssw0rd1'), false, 'credentials stay sealed in the backup');
    const manifest = JSON.parse(text.slice(0, text.indexOf('\n'))) as { format: string; gatewayVersion: string; keyId: string };
    assert.equal(manifest.format, 'amt-gateway-backup');
    assert.match(manifest.gatewayVersion, /^\d+\.\d+\.\d+/);
    await waitForScan(gw, token, second.id, 120_000);

    const target = await fresh();
    const restored = await cli(['restore', out, '--config', await siteFile(target)], { AMTGW_MASTER_KEY: masterKey });
    assert.equal(restored.code, 0, restored.stderr);
    assert.match(restored.stdout, /restored \d+ entries/);
    const back = await startTestGateway({ plugins: ['rest-api'], dataDir: target, masterKey, overrides: SIM_AMT_SETTINGS });
    try {
      const t = await back.login();
      const devicesAfter = new Set((await list(back, '/api/devices', t)).map((d) => d.id));
      assert.deepEqual(devicesBefore.map((d) => d.id).filter((id) => !devicesAfter.has(id)), [], 'every device');
      assert.deepEqual(await list(back, '/api/credentials', t), credentials, 'every credential');
      assert.deepEqual((await list(back, '/api/users', t)).map((u) => u.username).sort(), users.map((u) => u.username).sort(), 'every user');
      const check = await back.request('GET', '/api/test/test-credential', { token: t });
      assert.equal(((await check.json()) as { unsealed: boolean }).unsealed, true, 'the credentials open under the key');
      assert.equal((await back.request('POST', '/api/auth/login', { body: { username: 'operator-1', password: 'user-password-1' } })).status, 200);
    } finally {
      await back.stop();
    }

    const again = await cli(['restore', out, '--config', await siteFile(target)], { AMTGW_MASTER_KEY: masterKey });
    assert.equal(again.code, 1);
    assert.match(again.stderr, /restore failed: restore writes only into an empty data directory.*nothing was written \(GW_ERR_RESTORE_TARGET\)/);

    const otherKey = await fresh();
    await assert.rejects(restoreBackup(out, otherKey, join(otherKey, 'master.key'), { AMTGW_MASTER_KEY: randomBytes(32).toString('base64') }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_MASTER_KEY');
      assert.match(err.message, new RegExp(`is sealed under master key id ${manifest.keyId}, but the master key from AMTGW_MASTER_KEY has id \\S+; restore with the key .*nothing was written`));
      return true;
    });
    assert.equal(existsSync(join(otherKey, 'db')), false, 'nothing written');

    const damagedFile = join(await fresh(), 'damaged.backup');
    const bytes = Buffer.from(text);
    const at = text.indexOf('!plugin:rest-api!') + 30;
    bytes[at] = bytes[at] === 0x41 ? 0x42 : 0x41;
    await writeFile(damagedFile, bytes);
    const damagedTarget = await fresh();
    await assert.rejects(restoreBackup(damagedFile, damagedTarget, join(damagedTarget, 'master.key'), { AMTGW_MASTER_KEY: masterKey }), {
      code: 'GW_ERR_BACKUP_DAMAGED',
      message: /cannot be restored: its checksum does not match its content; nothing was written/,
    });
    assert.equal(existsSync(join(damagedTarget, 'db')), false, 'nothing written');
  } finally {
    await gw.cleanup();
    await fleet.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
});

test('the CLI backs up a stopped gateway from the store itself, and restores it', async () => {
  const gw = await startTestGateway({ plugins: ['rest-api'] });
  const outDir = await mkdtemp(join(tmpdir(), 'amtgw-backup-'));
  try {
    await createCredential(gw, await gw.login(), { name: 'c', username: 'admin', password: 'Offline-Secret' });
    await gw.stop();
    const site = await siteFile(gw.dataDir);
    const keyless = await cli(['backup', '--out', join(outDir, 'none'), '--config', site]);
    assert.equal(keyless.code, 1, 'a backup is authenticated with the master key: none, no backup');
    assert.match(keyless.stderr, /backup failed: a backup is authenticated with the master key, and there is none/);
    assert.equal(existsSync(join(outDir, 'none')), false);
    const res = await cli(['backup', '--out', join(outDir, 'b'), '--config', site], { AMTGW_MASTER_KEY: gw.masterKey });
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /\(from the stopped store\)/);
    const target = join(outDir, 'target');
    const restored = await cli(['restore', join(outDir, 'b'), '--config', await siteFile(target)], { AMTGW_MASTER_KEY: gw.masterKey });
    assert.equal(restored.code, 0, restored.stderr);
    const back = await startTestGateway({ plugins: ['rest-api'], dataDir: target, masterKey: gw.masterKey });
    assert.equal((await list(back, '/api/credentials', await back.login())).length, 1);
    await back.stop();
  } finally {
    await gw.cleanup();
    await rm(outDir, { recursive: true, force: true });
  }
});
