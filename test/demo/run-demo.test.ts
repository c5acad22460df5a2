/**
 * `npm run demo` as a user runs it, with the ports moved by the environment: it prints the addresses
 * it really listens on (the SOAP service at AMTGW_SOAP_PORT, the main listener at AMTGW_PORT), they
 * answer, and Ctrl-C stops the gateway and the fleet cleanly. A small fleet and a data directory of
 * its own keep it quick and away from the checkout's `data/demo`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from '../helpers/poll.js';
import { freePort } from '../bench/free-port.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

test('the demo prints the SOAP port it listens on (AMTGW_SOAP_PORT), serves there and stops on SIGINT', { timeout: 120_000 }, async () => {
  const soapPort = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'amtgw-demo-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/demo/run-demo.ts'], {
    cwd: ROOT,
    env: { ...process.env, AMTGW_SOAP_PORT: String(soapPort), AMTGW_PORT: '0', AMTGW_DATA_DIR: dataDir, AMTGW_DEMO_DEVICES: '6', AMTGW_DEMO_CIRA_DEVICES: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await until('the demo prints its addresses', () => {
      if (child.exitCode !== null) throw new Error(`the demo exited with ${child.exitCode}:\n${out}`);
      return /\n\s+Data\s+\S+/.test(out);
    }, 90_000);
    const soapUrl = /SOAP service\s+(\S+)/.exec(out)?.[1];
    assert.equal(soapUrl, `http://127.0.0.1:${soapPort}/MPSInterfaceService?wsdl`, out);
    const password = /as admin \/ (\S+)/.exec(out)![1]!;
    const wsdl = await fetch(soapUrl!, { headers: { authorization: `Basic ${Buffer.from(`admin:${password}`).toString('base64')}` } });
    assert.equal(wsdl.status, 200);
    assert.match(await wsdl.text(), /<wsdl:definitions|<definitions/);
    const docs = /API docs\s+(\S+)/.exec(out)![1]!;
    assert.notEqual(new URL(docs).port, '8080', 'AMTGW_PORT=0 moved the main listener');
    assert.equal((await fetch(docs)).status, 200);
    assert.match(out, /Scan completed/);
    child.kill('SIGINT');
    assert.equal(await exited, 0, out);
    assert.match(out, /Stopped\./);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});
