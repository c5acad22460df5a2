/**
 * A backup is authenticated as a whole with a key derived from the master key: a backup edited
 * without that key (a `*` user added, a permission changed, its checksum recomputed) is refused
 * before anything is written; user password hashes are sealed in it; a backup of the format before
 * authentication is restored only when the operator says it was kept safe.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '../helpers/gateway-harness.js';
import { writeBackup } from '../../core/backup/backup-client.js';
import { restoreBackup } from '../../core/backup/restore.js';
import { hashPassword } from '../../core/auth/password-hash.js';
import { PACKAGE_VERSION } from '../../core/assets/package-root.js';

/** The lines of a backup with its trailer recomputed as someone without the key would: count and SHA-256, no authentication. */
function resealed(lines: string[], trailerFields: Record<string, unknown> = {}): string {
  const body = lines.map((l) => l + '\n').join('');
  return body + JSON.stringify({ end: true, entries: lines.length - 1, sha256: createHash('sha256').update(body).digest('hex'), ...trailerFields }) + '\n';
}

describe('backup authentication', () => {
  let gw: TestGateway;
  let dir: string;
  let backup: string;
  let lines: string[];
  const fresh = async () => mkdtemp(join(dir, 'target-'));
  const restore = (file: string, target: string, options = {}) => restoreBackup(file, target, join(target, 'master.key'), { AMTGW_MASTER_KEY: gw.masterKey }, options);

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'amtgw-backup-auth-'));
    gw = await startTestGateway({ plugins: ['rest-api'] });
    await gw.userWith(['devices:read'], 'reader');
    backup = join(dir, 'gateway.backup');
    await writeBackup(gw.dataDir, backup, PACKAGE_VERSION);
    lines = (await readFile(backup, 'utf8')).trimEnd().split('\n');
  });
  after(async () => {
    await gw.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  test('the backup is authenticated in its trailer and holds no password hash in the clear', async () => {
    const manifest = JSON.parse(lines[0]!) as { formatVersion: number };
    const trailer = JSON.parse(lines.at(-1)!) as { hmac?: string };
    assert.equal(manifest.formatVersion, 2);
    assert.match(trailer.hmac ?? '', /^[0-9a-f]{64}$/);
    const users = lines.filter((l) => l.includes('!users!'));
    assert.ok(users.length >= 2, 'admin and reader');
    for (const line of users) assert.ok(!line.includes('scrypt$'), `a password hash in the clear: ${line.slice(0, 80)}`);
  });

  test('a `*` user added and the checksum recomputed: refused before anything is written', async () => {
    const forged = JSON.stringify({ id: 'forged', username: 'intruder', passwordHash: await hashPassword('intruder-password'), permissions: ['*'], createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() });
    const edited = [...lines.slice(0, -1)];
    edited.splice(2, 0, JSON.stringify(['!core!!users!intruder', forged]));
    const trailer = JSON.parse(lines.at(-1)!) as { hmac: string };
    const file = join(dir, 'forged.backup');
    await writeFile(file, resealed(edited, { hmac: trailer.hmac }));
    const target = await fresh();
    await assert.rejects(restore(file, target), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'GW_ERR_BACKUP_UNAUTHENTICATED');
      assert.match(err.message, /changed since it was made, or made under another master key.*nothing was written/);
      return true;
    });
    assert.equal(existsSync(join(target, 'db')), false, 'nothing written');
  });

  test("an entry edited (the reader made admin) with the trailer recomputed, the authentication dropped or the format lowered: refused", async () => {
    const edited = lines.slice(0, -1).map((l) => (l.includes('!users!reader') ? l.replace('devices:read', '*') : l));
    assert.notDeepEqual(edited, lines.slice(0, -1));
    const trailer = JSON.parse(lines.at(-1)!) as { hmac: string };
    for (const [name, text] of [
      ['edited', resealed(edited, { hmac: trailer.hmac })],
      ['no hmac', resealed(lines.slice(0, -1))],
      ['format 1', resealed([lines[0]!.replace('"formatVersion":2', '"formatVersion":1'), ...lines.slice(1, -1)])],
    ] as const) {
      const file = join(dir, `${name}.backup`);
      await writeFile(file, text);
      const target = await fresh();
      await assert.rejects(restore(file, target), { code: 'GW_ERR_BACKUP_UNAUTHENTICATED' }, name);
      assert.equal(existsSync(join(target, 'db')), false, `${name}: nothing written`);
    }
  });

  test('the backup as made restores, and its users sign in', async () => {
    const target = await fresh();
    await restore(backup, target);
    const back = await startTestGateway({ plugins: ['rest-api'], dataDir: target, masterKey: gw.masterKey });
    try {
      assert.equal((await back.request('POST', '/api/auth/login', { body: { username: 'reader', password: 'user-password-1' } })).status, 200);
    } finally {
      await back.stop();
    }
  });

  test('a backup of format 1 (no authentication) restores only with acceptUnauthenticated, its hashes sealed at the first start', async () => {
    const v1 = [lines[0]!.replace('"formatVersion":2', '"formatVersion":1'), ...lines.slice(1, -1)];
    const file = join(dir, 'v1.backup');
    await writeFile(file, resealed(v1));
    const refusedTarget = await fresh();
    await assert.rejects(restore(file, refusedTarget), (err: Error & { code?: string }) => err.code === 'GW_ERR_BACKUP_UNAUTHENTICATED' && /--accept-unauthenticated-backup/.test(err.message));
    const target = await fresh();
    await restore(file, target, { acceptUnauthenticated: true });
    const back = await startTestGateway({ plugins: ['rest-api'], dataDir: target, masterKey: gw.masterKey });
    try {
      assert.equal((await back.request('POST', '/api/auth/login', { body: { username: 'reader', password: 'user-password-1' } })).status, 200);
    } finally {
      await back.stop();
    }
  });
});
