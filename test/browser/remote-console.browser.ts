/**
 * The remote console in a real Chromium: noVNC, bundled in the console, draws the simulated device's
 * screen through the gateway's relay and types into it; the serial console (xterm.js) shows the
 * device's banner and echoes; Boot to BIOS reaches the device. Run: npm run test:browser.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_PASSWORD } from '../helpers/gateway-harness.js';
import { until } from '../helpers/poll.js';
import { createCredential, startScan, waitForScan } from '../helpers/scan-helpers.js';
import { keyBlockOrigin, keyColour, renderScreen, SCREEN } from '../sim/redirection/redir-screen.js';
import { cspViolations, launchChromium, recordingContext, screenshot, startConsoleGateway, type ConsoleFleet, type Recorded } from './console-kit.js';

const SECRET = 'Remote-Secret-9k2!';
let kit: ConsoleFleet;
let browser: Browser;
let page: Page;
let deviceId: string;
const recorded: Recorded[] = [];

before(async () => {
  kit = await startConsoleGateway({ count: 1, base: '127.115.4.1', password: SECRET, provisioningModes: [1], seed: 'remote-console' }, { plugins: { redirection: { enable: true } } });
  const token = await kit.gw.login();
  await createCredential(kit.gw, token, { name: 'fleet', username: 'admin', password: SECRET, isDefault: true });
  await waitForScan(kit.gw, token, (await startScan(kit.gw, token, { range: '127.115.4.1', timeoutMs: 2000 })).id);
  deviceId = ((await (await kit.gw.request('GET', '/api/devices', { token })).json()) as Array<{ id: string }>)[0]!.id;
  browser = await launchChromium();
  page = await (await recordingContext(browser, recorded)).newPage();
  await page.goto(`${kit.gw.url}/devices/${deviceId}`);
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Remote console' }).waitFor({ timeout: 20_000 });
});

after(async () => {
  // The console's strict policy holds with noVNC and xterm running: nothing they do is refused.
  assert.deepEqual(cspViolations, [], 'no Content-Security-Policy violation');
  await browser?.close();
  await kit?.stop();
});

interface CanvasPage {
  document: { querySelector(s: string): { getContext(k: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } } | null };
}
const pixel = (x: number, y: number) =>
  page.evaluate(([px, py]) => {
    const canvas = (globalThis as unknown as CanvasPage).document.querySelector('[data-testid="kvm-screen"] canvas');
    const data = canvas?.getContext('2d').getImageData(px!, py!, 1, 1).data;
    return data ? [data[0], data[1], data[2]] : null;
  }, [x, y]);
/**
 * noVNC asks a server named `Intel(r) AMT KVM` for 8-bit colour (firmware serves 8 and 16 bits
 * only): two bits per channel, each drawn as 0, 85, 170 or 255.
 */
const lowColour = (rgb: readonly number[]) => rgb.map((v) => Math.round((v * 3) / 255) * 85);
const expected = (x: number, y: number) => {
  const rgb = renderScreen(kit.fleet.devices[0]!.state);
  const at = (y * SCREEN.width + x) * 3;
  return lowColour([rgb[at]!, rgb[at + 1]!, rgb[at + 2]!]);
};


test('Remote desktop: noVNC draws the simulated screen, and keys typed into it reach the device and change it', async () => {
  const sim = kit.fleet.devices[0]!;
  await page.getByRole('button', { name: 'Remote desktop' }).click();
  await page.getByTestId('kvm-state').getByText('Connected').waitFor({ timeout: 20_000 });
  for (const [x, y] of [[5, 5], [320, 200], [639, 399]] as const) {
    await until(`pixel ${x},${y} drawn`, async () => JSON.stringify(await pixel(x, y)) === JSON.stringify(expected(x, y)), 20_000);
  }
  await page.getByTestId('kvm-screen').locator('canvas').click();
  await page.keyboard.press('a');
  await until('the key reached the device', async () => sim.redirection.typed.includes(0x61), 20_000);
  const { x, y } = keyBlockOrigin(sim.redirection.typed.indexOf(0x61));
  await until('the typed key is drawn', async () => JSON.stringify(await pixel(x + 1, y + 1)) === JSON.stringify(lowColour(keyColour(0x61))), 20_000);
  await screenshot(page, 'remote-desktop');
  await page.getByRole('button', { name: 'Ctrl+Alt+Del' }).click();
  await until('Ctrl+Alt+Del reached the device', async () => sim.redirection.typed.includes(0xffff), 20_000);
  await page.getByRole('button', { name: 'Disconnect' }).click();
  await until('the device slot is free', async () => !sim.redirection.open.has('kvm'), 20_000);
});

test('Serial console: xterm shows the BIOS banner and echoes what is typed', async () => {
  const sim = kit.fleet.devices[0]!;
  await page.getByRole('button', { name: 'Serial console' }).click();
  const terminal = page.getByTestId('sol-terminal');
  await until('the banner is shown', async () => ((await terminal.textContent()) ?? '').includes(`${sim.state.hostname} BIOS`), 20_000);
  await terminal.click();
  await page.keyboard.type('hi there');
  await until('the echo is shown', async () => ((await terminal.textContent()) ?? '').includes('hi there'), 20_000);
  await screenshot(page, 'serial-console');
  await page.getByRole('button', { name: 'Disconnect' }).click();
  await until('the device slot is free', async () => !sim.redirection.open.has('sol'), 20_000);
});

test('Boot to BIOS sits with the power actions and reaches the device; the password never came back', async () => {
  const sim = kit.fleet.devices[0]!;
  await page.getByRole('button', { name: 'Boot to BIOS' }).click();
  await until('the device booted into BIOS setup', async () => sim.redirection.lastBoot === 'bios', 20_000);
  assert.ok(!recorded.some((r) => r.text.includes(SECRET)));
});
