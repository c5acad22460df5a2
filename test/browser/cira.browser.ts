/**
 * The console's CIRA page in a real Chromium: a tunnel claiming the UUID of a device a LAN scan
 * found is shown unverified, a reader sees no Accept action, and an operator's Accept makes it the
 * device's. Run: npm run test:browser.
 */
import { test, before, after } from 'node:test';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { mergeConfig } from '../../core/config/load-config.js';
import { startFleet, type Fleet } from '../sim/fleet.js';
import { startTestGateway, ADMIN_PASSWORD, type TestGateway } from '../helpers/gateway-harness.js';
import { createCredential, SIM_AMT_SETTINGS, startScan, waitForScan } from '../helpers/scan-helpers.js';
import { ciraPort } from '../plugins/cira/gateway-cira-helpers.js';
import { CONSOLE_PLUGINS, launchChromium, recordingContext, screenshot, type Recorded } from './console-kit.js';

const MPS = { username: 'mps-console', password: 'Mps-P@ssw0rd-console' };

let gw: TestGateway;
let browser: Browser;
const fleets: Fleet[] = [];
const logs: string[] = [];
const recorded: Recorded[] = [];
let uuid: string;

before(async () => {
  gw = await startTestGateway({
    plugins: [...CONSOLE_PLUGINS, 'cira'],
    logs,
    overrides: mergeConfig(SIM_AMT_SETTINGS, {
      plugins: {
        'web-console': { options: { bundleDir: join(tmpdir(), `amtgw-no-bundle-${randomUUID()}`) } },
        cira: { enable: true, options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 5, forwardSettleMs: 50 } },
      },
    }),
  });
  const token = await gw.login();
  await createCredential(gw, token, { name: 'fleet', username: 'admin', password: 'P@ssw0rd1', isDefault: true });
  assert.equal((await gw.request('POST', '/api/cira/accounts', { token, body: MPS })).status, 201);
  const ca = ((await (await gw.request('GET', '/api/cira/certificate', { token })).json()) as { pem: string }).pem;
  const lan = await startFleet({ count: 1, base: '127.116.0.1', rmcpPort: 0, seed: 'console-cira-lan' });
  fleets.push(lan);
  uuid = lan.devices[0]!.config.uuid;
  const scan = await waitForScan(gw, token, (await startScan(gw, token, { range: '127.116.0.1-1', timeoutMs: 2000 })).id);
  assert.equal(scan.found, 1);
  fleets.push(await startFleet({ count: 1, base: '127.116.1.1', rmcpPort: 0, seed: 'console-cira-claim', cira: { host: '127.0.0.1', port: ciraPort(logs), ...MPS, ca, keepAliveSeconds: 1, reconnectMs: 0, claimUuid: uuid } }));
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  for (const fleet of fleets) await fleet.stop();
  await gw?.cleanup();
});

async function signedIn(username: string, password: string): Promise<Page> {
  const page = await (await recordingContext(browser, recorded)).newPage();
  await page.goto(gw.url + '/cira');
  await page.getByLabel('Username', { exact: true }).fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('link', { name: 'CIRA' }).click();
  await page.getByRole('heading', { name: 'CIRA tunnels' }).waitFor();
  return page;
}

test('a reader sees the unverified tunnel and no Accept action', async () => {
  await gw.userWith(['cira:read'], 'cira-reader');
  const page = await signedIn('cira-reader', 'user-password-1');
  const row = page.getByRole('row').filter({ hasText: uuid });
  await row.getByText('unverified: not used').waitFor();
  assert.equal(await row.getByRole('button', { name: 'Accept' }).count(), 0);
  await page.getByText('1 unverified tunnel claims the UUID of a device known from the LAN').waitFor();
  await page.context().close();
});

test("an operator accepts the unverified tunnel from the console, and it becomes the device's", async () => {
  const page = await signedIn('admin', ADMIN_PASSWORD);
  const row = page.getByRole('row').filter({ hasText: uuid });
  await row.getByText('unverified: not used').waitFor();
  await screenshot(page, 'cira-unverified');
  // The confirmation dialog is accepted by the recording context.
  await row.getByRole('button', { name: 'Accept' }).click();
  await row.getByText('accepted by an operator').waitFor();
  assert.equal(await row.getByRole('button', { name: 'Accept' }).count(), 0);
  const token = await gw.login();
  const connection = ((await (await gw.request('GET', '/api/cira/connections', { token })).json()) as Array<{ uuid: string; identity: string; verified: boolean }>).find((c) => c.uuid === uuid);
  assert.deepEqual([connection?.identity, connection?.verified], ['accepted', true]);
  await page.context().close();
});
