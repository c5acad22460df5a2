/**
 * Records survive kill -9: a gateway in a child process answers actions, is killed with SIGKILL the
 * moment an answer arrives, and after a restart on the same data directory every answered action
 * has its record (each was written before its answer was sent).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnGateway } from '../../helpers/gateway-process.js';
import type { AuditRecord } from '../../../plugins/audit/api.js';

const SITE = { plugins: { 'rest-api': { enable: true }, audit: { enable: true }, 'scan-hub': { enable: false }, 'remote-monitor': { enable: false }, 'power-mgmt': { enable: false }, 'soap-mps': { enable: false }, 'web-console': { enable: false } } };

async function login(url: string): Promise<string> {
  const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: 'admin-test-password-1' }) });
  assert.equal(res.status, 200);
  return ((await res.json()) as { token: string }).token;
}

test('every action answered before a SIGKILL has its record after the restart', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'amtgw-audit-kill-'));
  try {
    const first = await spawnGateway(dataDir, SITE);
    const url = await first.serving;
    const token = await login(url);
    const answered: string[] = [];
    let killed = false;
    const creates = Array.from({ length: 40 }, (_, i) =>
      fetch(`${url}/api/credentials`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ name: `cred-${i}`, username: 'admin', password: `Secret-${i}-pass` }),
      }).then(
        async (res) => {
          if (res.status !== 201) return;
          const { id } = (await res.json()) as { id: string };
          answered.push(id);
          if (!killed && answered.length >= 3) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        },
        () => undefined,
      ),
    );
    await Promise.all(creates);
    if (!killed) first.child.kill('SIGKILL');
    assert.equal(await first.exited, null, 'killed by the signal, not exited');
    assert.ok(answered.length >= 3);

    const second = await spawnGateway(dataDir, SITE);
    try {
      const again = await second.serving;
      const res = await fetch(`${again}/api/audit?action=credential.create&limit=1000`, { headers: { authorization: `Bearer ${await login(again)}` } });
      const records = (await res.json()) as AuditRecord[];
      const recorded = new Set(records.map((r) => r.target));
      for (const id of answered) assert.ok(recorded.has(id), `credential ${id} was answered, so its record is on disk`);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
