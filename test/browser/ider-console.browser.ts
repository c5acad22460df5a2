/**
 * Booting from an image in a real Chromium: the Images page uploads an ISO (with its progress bar)
 * and lists it with its SHA-256; the device page's Boot from image starts an IDE-R session and
 * resets the machine into it; the simulated BIOS boots the image and the installer reads it whole
 * while the page shows the bytes served (from the hub); Stop ends the session. Run: npm run test:browser.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_PASSWORD } from '../helpers/gateway-harness.js';
import { until } from '../helpers/poll.js';
import { createCredential, startScan, waitForScan } from '../helpers/scan-helpers.js';
import { writeBootIso, type BuiltImage } from '../helpers/boot-images.js';
import { cspViolations, launchChromium, recordingContext, screenshot, startConsoleGateway, type ConsoleFleet, type Recorded } from './console-kit.js';

const SECRET = 'Ider-Secret-7q3!';
let kit: ConsoleFleet;
let browser: Browser;
let page: Page;
let deviceId: string;
let dir: string;
let iso: BuiltImage;
const recorded: Recorded[] = [];

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ider-browser-'));
  iso = await writeBootIso(join(dir, 'rescue.iso'), 3 * 1024 * 1024);
  kit = await startConsoleGateway({ count: 1, base: '127.115.6.1', password: SECRET, provisioningModes: [1], seed: 'ider-console' }, { plugins: { redirection: { enable: true }, images: { enable: true } } });
  const token = await kit.gw.login();
  await createCredential(kit.gw, token, { name: 'fleet', username: 'admin', password: SECRET, isDefault: true });
  await waitForScan(kit.gw, token, (await startScan(kit.gw, token, { range: '127.115.6.1', timeoutMs: 2000 })).id);
  deviceId = ((await (await kit.gw.request('GET', '/api/devices', { token })).json()) as Array<{ id: string }>)[0]!.id;
  browser = await launchChromium();
  page = await (await recordingContext(browser, recorded)).newPage();
  await page.goto(`${kit.gw.url}/images`);
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Images', exact: true }).waitFor({ timeout: 20_000 });
});

after(async () => {
  assert.deepEqual(cspViolations, [], 'no Content-Security-Policy violation');
  await browser?.close();
  await kit?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('the Images page uploads an ISO and lists it with its size and SHA-256', async () => {
  await page.getByLabel('Image file').setInputFiles(iso.path);
  assert.equal(await page.getByLabel('Name').inputValue(), 'rescue.iso');
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.getByText(`SHA-256 ${iso.sha256}`).waitFor({ timeout: 20_000 });
  const row = page.getByRole('table', { name: 'Images' }).getByRole('row', { name: /rescue\.iso/ });
  await row.waitFor();
  assert.match(await row.innerText(), /CD \/ DVD\s+3\.1 MB/);
  await screenshot(page, 'images-page');
});

test('Boot from image resets the device into the image; the BIOS boots it, the page shows the bytes served, Stop ends the session', async () => {
  const sim = kit.fleet.devices[0]!;
  await page.goto(`${kit.gw.url}/devices/${deviceId}`);
  await page.getByRole('heading', { name: 'Boot from image' }).waitFor({ timeout: 20_000 });
  // IDE-R switched off on the device: Start is refused with the reason; switched on again, it goes.
  await page.getByLabel('IDE-R').uncheck();
  await until('IDE-R off on the device', () => !sim.redirection.ider);
  await page.getByRole('group', { name: 'Boot from image' }).getByRole('button', { name: 'Start' }).click();
  await page.getByText(/ider is disabled/).waitFor();
  await page.getByLabel('IDE-R').check();
  await until('IDE-R on again', () => sim.redirection.ider);
  const booted = sim.redirection.iderHost.nextFindings();
  await page.getByRole('group', { name: 'Boot from image' }).getByRole('button', { name: 'Start' }).click();
  const findings = await booted;
  assert.equal(findings.error, null);
  assert.equal(findings.installer?.sha256, iso.sha256);
  assert.equal(sim.redirection.lastBoot, 'ider-cd');
  let shown = '';
  // The BIOS's reads and then the installer's whole read: a little more than the image.
  await until('the page shows the whole image served', async () => /Serving: 3\.2 MB sent to the machine \(the image holds 3\.1 MB/.test((shown = await page.getByTestId('ider-progress').innerText())), 20_000).catch((err: Error) => {
    throw new Error(`${err.message}; the page shows: ${shown}`);
  });
  await screenshot(page, 'boot-from-image');
  await page.getByRole('group', { name: 'Boot from image' }).getByRole('button', { name: 'Stop' }).click();
  await until('the device session ended', () => !sim.redirection.open.has('ider'));
  await page.getByText(/Session ended \(deleted\)/).waitFor();
  assert.ok(!recorded.some((r) => r.text.includes(SECRET)), 'the device password never came back');
});
