/**
 * The images plugin on its own: a streamed upload without a declared length past the cap leaves
 * nothing behind, an upload cut off by its client leaves nothing and frees its name, and after a
 * restart an image whose file went missing is listed as unavailable (the record kept, as a backup
 * restores it), then available again once the file is back.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, rename } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { until } from '../../helpers/poll.js';

let gw: TestGateway;
let token: string;
const MAX = 256 * 1024;
const options = { plugins: ['rest-api', 'redirection', 'images'], overrides: { plugins: { images: { options: { maxBytes: MAX, uploadIdleSeconds: 1 } } } } };

before(async () => {
  gw = await startTestGateway(options);
  token = await gw.login();
});

after(async () => {
  await gw?.cleanup();
});

const imageDir = () => join(gw.dataDir, 'images');
const list = async () => (await (await gw.request('GET', '/api/images', { token })).json()) as Array<{ id: string; name: string; available: boolean }>;

/** A chunked upload (no Content-Length) of `chunks` pieces of 64 KiB; `stopAfter` pieces then the client goes silent. */
function chunkedUpload(name: string, chunks: number, stopAfter = chunks): Promise<{ status: number | null; error?: string }> {
  return new Promise((resolve) => {
    const url = new URL(`${gw.url}/api/images?name=${name}&kind=floppy`);
    const req = request(url, { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? null }));
    });
    req.on('error', (err) => resolve({ status: null, error: err.message }));
    let sent = 0;
    const more = () => {
      while (sent < stopAfter) {
        sent++;
        if (!req.write(Buffer.alloc(64 * 1024, sent))) return void req.once('drain', more);
      }
      if (stopAfter === chunks) req.end();
    };
    more();
  });
}

test('a chunked upload past the cap is refused and leaves no file; one within it is stored', async () => {
  const refused = await chunkedUpload('too-big', 8);
  assert.ok(refused.status === 413 || refused.status === null, `status ${refused.status}`);
  const ok = await chunkedUpload('fits', 2);
  assert.equal(ok.status, 201, ok.error);
  assert.deepEqual((await list()).map((i) => i.name), ['fits']);
  assert.deepEqual((await readdir(imageDir())).filter((f) => f.startsWith('.upload-')), []);
});

test('an upload whose client stalls is abandoned: nothing kept, the name free again', async () => {
  const stalled = await chunkedUpload('stalled', 3, 1);
  assert.ok(stalled.status === 400 || stalled.status === null, `status ${stalled.status}`);
  await until('no partial file', async () => (await readdir(imageDir())).every((f) => !f.startsWith('.upload-')));
  assert.ok(!(await list()).some((i) => i.name === 'stalled'));
  assert.equal((await chunkedUpload('stalled', 1)).status, 201);
});

test('after a restart an image whose file is missing is listed unavailable, and available once the file is back', async () => {
  const image = (await list()).find((i) => i.name === 'fits')!;
  await gw.stop();
  const file = join(imageDir(), `${image.id}.img`);
  await rename(file, `${file}.aside`);
  gw = await startTestGateway({ ...options, dataDir: gw.dataDir, masterKey: gw.masterKey });
  token = await gw.login();
  assert.equal((await list()).find((i) => i.id === image.id)?.available, false);
  await gw.stop();
  await rename(`${file}.aside`, file);
  gw = await startTestGateway({ ...options, dataDir: gw.dataDir, masterKey: gw.masterKey });
  token = await gw.login();
  assert.equal((await list()).find((i) => i.id === image.id)?.available, true);
});
