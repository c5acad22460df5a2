/**
 * Extra suite (`npm run test:zeep`, run by .ci/run): Python zeep, a strict document/literal client
 * that behaves as .NET and JAX-WS clients do, runs every operation against a real gateway.
 * Not part of `npm test`: it needs Debian's python3-zeep. Without zeep it skips, unless
 * AMTGW_REQUIRE_ZEEP=1 (CI) makes a missing zeep a failure.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { testMachine } from '../fixtures/presence-fixture-plugin.js';
import { startSoapGateway, type SoapTestGateway } from '../soap-test-gateway.js';

const run = promisify(execFile);
const SCRIPT = fileURLToPath(new URL('./zeep-client.py', import.meta.url));
const MACHINES = Array.from({ length: 7 }, (_, i) => testMachine(i + 1));
// ZEEP_PYTHON names the interpreter; else python3 on PATH, then the system one (a pyenv or venv
// python3 first on PATH does not see Debian's package).
const CANDIDATES = process.env['ZEEP_PYTHON'] ? [process.env['ZEEP_PYTHON']] : ['python3', '/usr/bin/python3'];

async function pythonWithZeep(): Promise<string | undefined> {
  for (const python of CANDIDATES) {
    try {
      await run(python, ['-c', 'import zeep'], { timeout: 30_000 });
      return python;
    } catch {
      // not this one
    }
  }
  return undefined;
}

interface ZeepReport {
  connected: Record<string, boolean>;
  expires: string;
  pages: Array<{ items: string[]; endOfSequence: boolean }>;
  release: unknown;
  subscribeExpires: string;
  unsubscribe: unknown;
  faults: { pullAfterRelease?: string; unsubscribeAgain?: string };
}

let python: string | undefined;
let gw: SoapTestGateway | undefined;

before(async () => {
  python = await pythonWithZeep();
  if (!python) return;
  gw = await startSoapGateway({ machines: MACHINES, reader: true });
  gw.fixture.setMachines(MACHINES, MACHINES.slice(0, 6).map((m) => m.deviceId));
});
after(async () => {
  await gw?.cleanup();
});

test('zeep reads the WSDL and runs all six operations, Release and Unsubscribe answering with an empty Body', async (t) => {
  if (!python || !gw) {
    const reason = `python3-zeep is not installed (tried ${CANDIDATES.join(', ')}; apt-get install -y python3-zeep)`;
    if (process.env['AMTGW_REQUIRE_ZEEP'] === '1') assert.fail(reason);
    t.skip(reason);
    return;
  }
  const delivery = 'http://127.0.0.1:9/zeep-receiver';
  const names = ['amt-1', 'AMT-2.Example.TEST', 'amt-7', 'unknown.example.test'];
  const { stdout } = await run(python, [SCRIPT, `${gw.serviceUrl}?wsdl`, gw.credentials.username, gw.credentials.password, delivery, ...names], {
    timeout: 60_000,
    maxBuffer: 1024 * 1024,
    env: { ...process.env, NO_PROXY: '*', no_proxy: '*' },
  }).catch((err: Error & { stderr?: string }) => {
    throw new Error(`zeep failed: ${err.stderr?.trim().split('\n').slice(-5).join('\n') ?? err.message}`);
  });
  const report = JSON.parse(stdout) as ZeepReport;

  assert.deepEqual(report.connected, { 'amt-1': true, 'AMT-2.Example.TEST': true, 'amt-7': false, 'unknown.example.test': false });
  assert.ok(Date.parse(report.expires) > Date.now(), `Expires ${report.expires} is a future dateTime`);
  assert.deepEqual(report.pages, [
    { items: MACHINES.slice(0, 4).map((m) => m.fqdn!), endOfSequence: false },
    { items: MACHINES.slice(4, 6).map((m) => m.fqdn!), endOfSequence: true },
  ]);
  assert.equal(report.release, null, 'Release: zeep reads the empty Body as no result');
  assert.match(report.faults.pullAfterRelease ?? '', /unknown, released or expired/);
  assert.ok(Date.parse(report.subscribeExpires) > Date.now(), `subscription Expires ${report.subscribeExpires}`);
  assert.equal(report.unsubscribe, null, 'Unsubscribe: zeep reads the empty Body as no result');
  assert.match(report.faults.unsubscribeAgain ?? '', /no subscription/);
});
