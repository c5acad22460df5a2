/**
 * The console's Activation page in a real Chromium: a profile created (a fixed password warned
 * about), a provisioning certificate uploaded from a file, an agent's activation appearing live in the
 * records, the device's page saying how it was activated, a one-time code issued; no secret in
 * anything the page received. Run: npm run test:browser.
 */
import { test, before, after } from 'node:test';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { mergeConfig } from '../../core/config/load-config.js';
import { startTestGateway, ADMIN_PASSWORD, type TestGateway } from '../helpers/gateway-harness.js';
import { SIM_AMT_SETTINGS } from '../helpers/scan-helpers.js';
import { SimMachine } from '../sim/activation/sim-machine.js';
import { runAgent } from '../sim/activation/sim-agent.js';
import { provisioningPki } from '../sim/activation/provisioning-pki.js';
import { CONSOLE_PLUGINS, cspViolations, launchChromium, recordingContext, screenshot, type Recorded } from './console-kit.js';

const FIXED = 'Fixed-P@ssw0rd9';
let gw: TestGateway;
let browser: Browser;
let machine: SimMachine;
const recorded: Recorded[] = [];
let pki: Awaited<ReturnType<typeof provisioningPki>>;

before(async () => {
  pki = await provisioningPki({ commonName: 'provision.console.example' });
  gw = await startTestGateway({
    plugins: [...CONSOLE_PLUGINS, 'activation'],
    overrides: mergeConfig(SIM_AMT_SETTINGS, { plugins: { 'web-console': { options: { bundleDir: join(tmpdir(), `amtgw-no-bundle-${randomUUID()}`) } }, activation: { enable: true } } }),
  });
  machine = new SimMachine({ index: 0, address: '127.117.0.1', seed: 'console-activation' });
  await machine.start();
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  await machine?.stop();
  await gw?.cleanup();
});

async function activationPage(): Promise<Page> {
  const page = await (await recordingContext(browser, recorded)).newPage();
  await page.goto(gw.url + '/');
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activation' }).click();
  await page.getByRole('heading', { name: 'Activation', level: 1 }).waitFor();
  return page;
}

test('an operator creates a profile with a fixed password, warned that every device shares it', async () => {
  const page = await activationPage();
  await page.getByRole('button', { name: 'Add profile' }).click();
  await page.getByLabel('Profile name').fill('console-ccm');
  await page.getByLabel('AMT password').selectOption('fixed');
  await page.getByText('what one device\'s exchange reveals opens all of them').waitFor();
  await page.getByLabel('Fixed password').fill(FIXED);
  await page.getByRole('button', { name: 'Create profile' }).click();
  const row = page.getByRole('row').filter({ hasText: 'console-ccm' });
  await row.getByText('shared by every device').waitFor();
  await page.context().close();
});

test('an operator uploads a provisioning certificate from a PFX file', async () => {
  const file = join(tmpdir(), `console-${randomUUID()}.pfx`);
  await writeFile(file, Buffer.from(pki.pfxBase64, 'base64'));
  const page = await activationPage();
  await page.getByLabel('DNS suffix').fill('console.example');
  await page.getByLabel('Certificate file (PFX)').setInputFiles(file);
  await page.getByLabel('Certificate password').fill(pki.password);
  await page.getByRole('button', { name: 'Upload certificate' }).click();
  await page.getByText('Certificate for console.example stored.').waitFor();
  await page.getByRole('row').filter({ hasText: 'console.example' }).getByText(pki.rootSha256.slice(0, 16)).waitFor();
  await page.context().close();
});

test('an agent\'s activation shows up live, the device\'s page says how it was activated, and a one-time code is issued', async () => {
  const page = await activationPage();
  const result = await runAgent({ url: gw.url.replace(/^http/, 'ws') + '/activate', machine, command: 'activate', profile: 'console-ccm' });
  assert.equal(result.outcome, 'success', result.message);
  const row = page.getByRole('row').filter({ hasText: machine.uuid });
  await row.getByText('succeeded').waitFor();
  await screenshot(page, 'activation');
  await row.getByRole('button', { name: `One-time code for ${machine.uuid}` }).click();
  await page.getByText(`One-time code for ${machine.uuid}`).waitFor();
  await row.getByRole('link', { name: machine.uuid }).click();
  await page.getByRole('heading', { name: 'Activation', level: 2 }).waitFor();
  await page.getByText('client control mode by this gateway').waitFor();
  await page.context().close();
});

test('no secret reached the browser, and the pages broke no content-security rule', () => {
  const texts = recorded.map((r) => r.text).join('\n');
  for (const secret of [FIXED, pki.password, machine.firmware.options.localAccount.password]) assert.ok(!texts.includes(secret));
  assert.ok(!texts.includes(pki.pfxBase64.slice(0, 64)));
  assert.deepEqual(cspViolations, []);
});
