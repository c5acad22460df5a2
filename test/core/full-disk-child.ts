/**
 * Run by store-full-disk.test.ts in a child process whose disk fills up: a tmpfs of its own
 * (`unshare -m`, root) or a file size limit (`ulimit -f`). Writes credentials until the store
 * refuses, records what the gateway answered, and (with --restart, on the tmpfs) frees the space,
 * restarts and lists what survived. Prints one JSON line.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestGateway } from '../helpers/gateway-harness.js';

const [dataDir, masterKey, fillerBytes, restartFlag] = process.argv.slice(2) as [string, string, string, string | undefined];
const filler = join(dataDir, 'filler');
if (Number(fillerBytes) > 0) await writeFile(filler, Buffer.alloc(Number(fillerBytes)));

const gw = await startTestGateway({ plugins: ['rest-api'], dataDir, masterKey });
const token = await gw.login();
const acknowledged: string[] = [];
let refusal: { status: number; body: unknown } | undefined;
for (let i = 0; i < 5000 && !refusal; i++) {
  const name = `cred-${i}`;
  const res = await gw.request('POST', '/api/credentials', { token, body: { name, username: 'admin', password: `P${i}-`.padEnd(250, String(i % 10)) } });
  if (res.status === 201) acknowledged.push(name);
  else refusal = { status: res.status, body: await res.json() };
}
const next = await gw.request('POST', '/api/credentials', { token, body: { name: 'after', username: 'admin', password: 'p' } });
const ready = await gw.request('GET', '/api/health/ready');
const health = await gw.request('GET', '/api/health');
const read = await gw.request('GET', '/api/credentials', { token });
const result: Record<string, unknown> = {
  acknowledged,
  refusal,
  next: { status: next.status, body: await next.json() },
  ready: { status: ready.status, body: await ready.json() },
  health: { status: health.status, body: await health.json() },
  readStatus: read.status,
};
if (restartFlag === '--restart') {
  await rm(filler, { force: true });
  const stillRefused = await gw.request('POST', '/api/credentials', { token, body: { name: 'after-space', username: 'admin', password: 'p' } });
  result.afterSpace = stillRefused.status;
  await gw.stop();
  try {
    const again = await startTestGateway({ plugins: ['rest-api'], dataDir, masterKey });
    const list = await again.request('GET', '/api/credentials', { token: await again.login() });
    result.survivors = ((await list.json()) as Array<{ name: string }>).map((c) => c.name);
    const ok = await again.request('POST', '/api/credentials', { token: await again.login(), body: { name: 'after-restart', username: 'admin', password: 'p' } });
    result.afterRestart = ok.status;
    await again.stop();
  } catch (err) {
    result.restartError = (err as Error).message;
  }
} else {
  await gw.stop();
}
process.stdout.write(JSON.stringify(result) + '\n');
process.exit(0);
