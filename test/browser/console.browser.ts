/**
 * The operator console in a real Chromium against a real gateway and a simulated fleet: sign-in and
 * its errors, the menu for an admin and for a reader, a scan watched to 100 % with its discoveries,
 * a power change that reaches the device, a credential whose password never comes back, the other
 * pages, an expired session said so on the sign-in page, sign-out revoking the token, and 429 after
 * repeated failures. Run: npm run test:browser.
 */
import { test, before, after } from 'node:test';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { ADMIN_PASSWORD } from '../helpers/gateway-harness.js';
import type { PageGlobals } from './page-globals.js';
import { launchChromium, recordingContext, screenshot, startConsoleGateway, type ConsoleFleet, type Recorded } from './console-kit.js';

const EXAMPLE_PLUGIN = fileURLToPath(new URL('../fixtures/plugins/example-plugin/', import.meta.url));
const FLEET_SECRET = 'Console-Secret-7f3a!x';
const FLEET_SIZE = 12;
const RANGE = `127.115.0.1-${FLEET_SIZE}`;

let kit: ConsoleFleet;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const recorded: Recorded[] = [];

before(async () => {
  kit = await startConsoleGateway(
    { count: FLEET_SIZE, base: '127.115.0.1', password: FLEET_SECRET, altPasswordEvery: 6, tlsEvery: 4, provisioningStates: [2, 2, 1], seed: 'console' },
    {
      auth: { login: { freeFailures: 2, maxFailures: 5, delayStepMs: 10, windowSeconds: 900 } },
      plugins: {
        // A third-party plugin whose route the console has no page for.
        'example-plugin': { enable: true, path: EXAMPLE_PLUGIN },
        'remote-monitor': { options: { intervalSeconds: 1, missedProbesOffline: 1 } },
        // A site route with a child: the menu keeps the nesting.
        'route-permissions': { options: { routes: [{ path: '/reports', name: 'reports', meta: { title: 'Reports', permission: null, order: 95 }, children: [{ path: '/reports/weekly', name: 'weekly', meta: { title: 'Weekly', permission: null } }] }] } },
      },
    },
  );
  browser = await launchChromium();
  context = await recordingContext(browser, recorded);
  page = await context.newPage();
});

after(async () => {
  await browser?.close();
  await kit?.stop();
});

const nav = (p: Page) => p.getByRole('navigation', { name: 'Main' }).getByRole('link');
const token = (p: Page) => p.evaluate(() => (JSON.parse((globalThis as unknown as PageGlobals).sessionStorage.getItem('amtgw.session') ?? 'null') as { token: string } | null)?.token ?? null);

async function signIn(p: Page, username: string, password: string): Promise<void> {
  await p.getByLabel('Username', { exact: true }).fill(username);
  await p.getByLabel('Password', { exact: true }).fill(password);
  await p.getByRole('button', { name: 'Sign in' }).click();
}

test('the shell loads without a token; a wrong password says so and signs nobody in', async () => {
  await page.goto(kit.gw.url + '/');
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  await screenshot(page, 'sign-in');
  await signIn(page, 'admin', 'not-the-password');
  await page.getByText('Wrong username or password.').waitFor();
  assert.equal(await token(page), null);
  assert.equal(await page.getByLabel('Password', { exact: true }).inputValue(), '', 'the typed password is cleared');
});

test("an admin's menu is the route list's titles in order, home first", async () => {
  await signIn(page, 'admin', ADMIN_PASSWORD);
  await page.getByRole('heading', { name: 'Home' }).waitFor();
  const adminToken = (await token(page))!;
  type Route = { meta: { title: string }; children?: Route[] };
  const titles = (routes: Route[]): string[] => routes.flatMap((r) => [r.meta.title, ...titles(r.children ?? [])]);
  const routes = (await (await kit.gw.request('GET', '/api/routes', { token: adminToken })).json()) as Route[];
  assert.deepEqual(await nav(page).allTextContents(), titles(routes));
  assert.deepEqual(await nav(page).allTextContents(), ['Home', 'Devices', 'Network scan', 'Credentials', 'Diagnostics', 'Monitoring', 'Power', 'Audit trail', 'Example', 'Users', 'Reports', 'Weekly']);
  const nested = page.getByRole('navigation', { name: 'Main' }).getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Reports', exact: true }) });
  assert.deepEqual(await nested.getByRole('list').getByRole('link').allTextContents(), ['Weekly'], 'Weekly is nested under Reports');
  await screenshot(page, 'home');
});

test('a created credential is listed without its password, and the password never comes back', async () => {
  await nav(page).getByText('Credentials').click();
  await page.getByRole('button', { name: 'Add credential' }).click();
  await page.getByLabel('Name', { exact: true }).fill('fleet');
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(FLEET_SECRET);
  await page.getByLabel('Default credential (tried first)', { exact: true }).check();
  await page.getByRole('button', { name: 'Create credential' }).click();
  await page.getByText('fleet created.').waitFor();
  const row = page.getByRole('row', { name: /fleet/ });
  assert.match((await row.textContent()) ?? '', /admin.*default/);
  await page.getByRole('button', { name: 'Edit fleet' }).click();
  assert.equal(await page.getByLabel('Password', { exact: true }).inputValue(), '', 'the edit form never prefills the password');
  await screenshot(page, 'credentials');
  await page.getByRole('button', { name: 'Cancel' }).click();
  const html = await page.content();
  assert.ok(!html.includes(FLEET_SECRET), 'the page does not show the password');
});

test('another credential can be made the default and deleted', async () => {
  await page.getByRole('button', { name: 'Add credential' }).click();
  await page.getByLabel('Name', { exact: true }).fill('spare');
  await page.getByLabel('Username', { exact: true }).fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('spare-password-1');
  await page.getByRole('button', { name: 'Create credential' }).click();
  await page.getByRole('button', { name: 'Make spare the default' }).click();
  await page.getByText('spare is now the default credential.').waitFor();
  const defaultCell = (name: string) => page.getByRole('row', { name: new RegExp(`^${name} `) }).getByRole('cell').nth(2).textContent();
  assert.equal(await defaultCell('spare'), 'default');
  assert.equal(await defaultCell('fleet'), '');
  await page.getByRole('button', { name: 'Make fleet the default' }).click();
  await page.getByText('fleet is now the default credential.').waitFor();
  await page.getByRole('button', { name: 'Delete spare' }).click();
  await page.getByText('spare deleted.').waitFor();
  assert.equal(await page.getByRole('row', { name: /^spare/ }).count(), 0);
});

test('a malformed range is reported next to the Range field', async () => {
  await nav(page).getByText('Network scan').click();
  await page.getByLabel('Range', { exact: true }).fill('127.115.0.999');
  await page.getByRole('button', { name: 'Start scan' }).click();
  await page.locator('.field-error').first().waitFor();
  const described = await page.getByLabel('Range', { exact: true }).getAttribute('aria-describedby');
  assert.ok(described && described.includes('error'), 'the input points at its error');
  assert.match((await page.locator(`[id="${described!.split(' ')[0]}"]`).textContent()) ?? '', /127\.115\.0\.999/);
  assert.equal(await page.getByLabel('Range', { exact: true }).getAttribute('aria-invalid'), 'true');
});

test('a scan shows live progress up to 100 % and every device it discovers', async () => {
  await page.getByLabel('Range', { exact: true }).fill(RANGE);
  await page.getByLabel('Timeout (ms)', { exact: true }).fill('2000');
  await page.getByRole('button', { name: 'Start scan' }).click();
  const bar = page.getByRole('progressbar', { name: 'Scan progress' });
  await bar.waitFor();
  const seen = new Set<string>();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const now = (await bar.getAttribute('aria-valuenow')) ?? '';
    seen.add(now);
    if (now === '100' && (await page.getByText('completed', { exact: true }).count()) > 0) break;
    assert.ok(Date.now() < deadline, `progress stuck at ${now}`);
    await page.waitForTimeout(20);
  }
  const discovered = page.getByRole('table', { name: /Discovered devices/ }).locator('tbody tr');
  await page.waitForFunction((n) => (globalThis as unknown as PageGlobals).document.querySelectorAll('.current-scan tbody tr').length === n, FLEET_SIZE, { timeout: 10_000 });
  assert.equal(await discovered.count(), FLEET_SIZE);
  const addresses = (await discovered.locator('td:first-child').allTextContents()).sort();
  assert.deepEqual(addresses, kit.fleet.devices.map((d) => d.address).sort());
  await page.getByRole('table').filter({ hasText: 'Recent scans' }).or(page.getByRole('heading', { name: 'Recent scans' })).first().waitFor();
  await screenshot(page, 'scan');
  assert.ok(seen.has('100'));
});

test('a running scan can be cancelled and shows as cancelled among the recent scans', async () => {
  await page.getByLabel('Range', { exact: true }).fill('127.117.0.0/16');
  await page.getByLabel('Timeout (ms)', { exact: true }).fill('1000');
  await page.getByLabel('Concurrency', { exact: true }).fill('8');
  await page.getByRole('button', { name: 'Start scan' }).click();
  await page.getByRole('heading', { name: 'Scan of 127.117.0.0/16' }).waitFor();
  await page.getByRole('button', { name: 'Cancel scan' }).click();
  await page.locator('.current-scan strong', { hasText: 'cancelled' }).waitFor({ timeout: 10_000 });
  await page.getByRole('row', { name: /127\.117\.0\.0\/16 cancelled/ }).waitFor({ timeout: 10_000 });
});

test('the device table lists the fleet with header cells, filters by search, and a device deep link survives reload', async () => {
  await nav(page).getByText('Devices').click();
  const table = page.getByRole('table');
  await page.waitForFunction((n) => (globalThis as unknown as PageGlobals).document.querySelectorAll('.devices tbody tr:not(.spacer) a').length === n, FLEET_SIZE, { timeout: 10_000 });
  assert.deepEqual(await table.getByRole('columnheader').allTextContents(), ['Address ▲', 'Hostname', 'Firmware', 'Provisioning', 'TLS', 'Sign-in', 'Online', 'Last seen']);
  await screenshot(page, 'devices');
  await page.getByRole('columnheader', { name: /Address/ }).getByRole('button').click();
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('.devices tbody tr:not(.spacer) a')?.textContent === '127.115.0.12');
  await page.getByLabel('Search', { exact: true }).fill('127.115.0.1');
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('.devices output')?.textContent === '4 devices');
  await page.getByLabel('Search', { exact: true }).fill('');
  const target = kit.fleet.devices[1]!;
  await page.waitForFunction((a) => [...(globalThis as unknown as PageGlobals).document.querySelectorAll('.devices tbody a')].some((e) => e.textContent === a), target.address);
  await page.getByRole('link', { name: target.address, exact: true }).click();
  await page.getByRole('heading', { name: 'Power' }).waitFor();
  await page.reload();
  await page.getByTestId('power-state').waitFor();
  assert.match(page.url(), /\/devices\/[^/]+$/);
});

test('powering a device off asks first, reaches the simulated device and shows its new state', async () => {
  const target = kit.fleet.devices[1]!;
  assert.equal(await page.getByTestId('power-state').textContent(), 'on');
  await page.getByRole('button', { name: 'Power off' }).click();
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('[data-testid="power-state"]')?.textContent === 'off', undefined, { timeout: 20_000 });
  assert.equal(target.state.powerState, 8);
  await page.getByRole('table', { name: 'Memory' }).waitFor({ timeout: 20_000 });
  await page.getByRole('heading', { name: 'Event log' }).waitFor();
  await screenshot(page, 'device');
  await page.getByRole('button', { name: 'Power on' }).click();
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('[data-testid="power-state"]')?.textContent === 'on', undefined, { timeout: 20_000 });
  assert.equal(target.state.powerState, 2);
});

test('bulk power asks first and gives one result per selected device', async () => {
  await nav(page).getByText('Power').click();
  await page.getByLabel(`Select ${kit.fleet.devices[0]!.address}`).or(page.getByRole('checkbox').nth(1)).first().waitFor();
  await page.getByRole('checkbox').nth(1).check();
  await page.getByRole('checkbox').nth(2).check();
  await page.getByLabel('Action', { exact: true }).selectOption('reset');
  await page.getByRole('button', { name: 'Run on 2 selected' }).click();
  const results = page.getByRole('table', { name: /Reset: 2 succeeded, 0 failed/ });
  await results.waitFor({ timeout: 30_000 });
  assert.equal(await results.locator('tbody tr').count(), 2);
  await screenshot(page, 'power');
});

test('monitoring shows the online summary as a picture, diagnostics test a device, users can be created', async () => {
  await nav(page).getByText('Monitoring').click();
  const picture = page.getByRole('img', { name: new RegExp(`^${FLEET_SIZE} devices: \\d+ online`) });
  await picture.waitFor();
  await page.getByRole('heading', { name: 'Monitor schedule' }).waitFor();
  await screenshot(page, 'monitoring');

  await nav(page).getByText('Diagnostics').click();
  const wsman = page.getByRole('form', { name: 'Test WS-Management' });
  await wsman.getByLabel('Device address, id or UUID', { exact: true }).fill(kit.fleet.devices[0]!.address);
  await wsman.getByRole('button', { name: 'Test WS-Management' }).click();
  await wsman.getByText('authenticated').waitFor({ timeout: 20_000 });
  assert.match((await wsman.locator('dl').textContent()) ?? '', /authenticatedtrue/);
  await screenshot(page, 'diagnostics');

  await nav(page).getByText('Users').click();
  await page.getByRole('button', { name: 'Add user' }).click();
  await page.getByLabel('Username', { exact: true }).fill('reader');
  await page.getByLabel('Password', { exact: true }).fill('reader-password-1');
  await page.getByLabel('devices:read', { exact: true }).check();
  await page.getByRole('button', { name: 'Create user' }).click();
  await page.getByRole('cell', { name: 'reader', exact: true }).waitFor();
  await screenshot(page, 'users');
});

test('the audit trail lists what was done, newest first, and filters by action', async () => {
  await nav(page).getByText('Audit trail').click();
  const table = page.getByRole('table');
  await table.getByRole('cell', { name: 'user.create', exact: true }).first().waitFor();
  await table.getByRole('cell', { name: 'auth.sign-in', exact: true }).first().waitFor();
  await page.getByLabel('Action', { exact: true }).fill('user.*');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByRole('status').filter({ hasText: /of 1, newest first/ }).waitFor();
  assert.deepEqual(await table.locator('tbody tr td:nth-child(4)').allTextContents(), ['user.create']);
  assert.deepEqual(await table.locator('tbody tr td:nth-child(5)').allTextContents(), ['reader']);
  await screenshot(page, 'audit');
});

test("a third-party plugin's route gets a placeholder page with its title", async () => {
  await nav(page).getByText('Example').click();
  await page.getByRole('heading', { name: 'Example' }).waitFor();
  await page.getByText('This page comes from a plugin the console has no view for.').waitFor();
  assert.match(page.url(), /\/example$/);
});

test('a device that goes offline turns offline in the open device table, without a reload', async () => {
  await nav(page).getByText('Devices').click();
  const sim = kit.fleet.devices[3]!;
  const badge = page.getByRole('row', { name: new RegExp(`^${sim.address.replace(/\./g, '\\.')} `) }).locator('.badge');
  assert.equal(await badge.textContent(), 'online');
  let listRequests = 0;
  const countList = (req: Request) => void (req.url().includes('/api/devices') && listRequests++);
  page.on('request', countList);
  await sim.stop();
  await page.waitForFunction((a) => [...(globalThis as unknown as PageGlobals).document.querySelectorAll('.devices tbody tr')].some((r) => r.textContent!.startsWith(a + 'amt-sim') && r.textContent!.includes('offline')), sim.address, { timeout: 20_000 });
  page.off('request', countList);
  assert.equal(listRequests, 0, 'no list reload: the hub event changed the row');
});

test('deleting a device asks first and takes it off the list', async () => {
  const sim = kit.fleet.devices[3]!;
  await page.getByRole('link', { name: sim.address, exact: true }).click();
  await page.getByRole('button', { name: 'Delete device' }).click();
  await page.waitForURL(/\/devices$/);
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelector('.devices output')?.textContent === '11 devices');
  assert.equal(await page.getByRole('link', { name: sim.address, exact: true }).count(), 0);
});

test('no response or hub frame the console received contains the credential password', async () => {
  assert.ok(recorded.length > 20, `recorded ${recorded.length} responses`);
  const leaks = recorded.filter((r) => r.text.includes(FLEET_SECRET)).map((r) => r.url);
  assert.deepEqual(leaks, []);
});

test('a user with only devices:read signs in and moves by keyboard, sees Home and Devices (and the open site routes), and other pages are not there for them', async () => {
  const other = await context.newPage();
  await other.goto(kit.gw.url + '/scan');
  // By keyboard only: Tab to the first field, type, Tab, type, Enter.
  await other.getByRole('button', { name: 'Sign in' }).waitFor();
  await other.keyboard.press('Tab');
  await other.keyboard.type('reader');
  await other.keyboard.press('Tab');
  await other.keyboard.type('reader-password-1');
  await other.keyboard.press('Enter');
  await other.getByRole('heading', { name: 'Not found' }).waitFor();
  // The site's Reports routes need no permission: every signed-in user sees them.
  assert.deepEqual(await nav(other).allTextContents(), ['Home', 'Devices', 'Reports', 'Weekly']);
  await nav(other).getByText('Devices').focus();
  await other.keyboard.press('Enter');
  await other.waitForFunction(() => (globalThis as unknown as PageGlobals).document.querySelectorAll('.devices tbody tr:not(.spacer) a').length > 0);
  await other.close();
});

const EXPIRED = 'Your session has expired. Sign in again.';

async function signInAsAdmin(p: Page): Promise<void> {
  await signIn(p, 'admin', ADMIN_PASSWORD);
  await p.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** Rewrites the stored session's expiry, as if the token had been issued earlier. */
async function setStoredExpiry(p: Page, expiresAt: number): Promise<void> {
  await p.evaluate((at) => {
    const storage = (globalThis as unknown as PageGlobals).sessionStorage;
    const session = JSON.parse(storage.getItem('amtgw.session')!) as { expiresAt: string };
    storage.setItem('amtgw.session', JSON.stringify({ ...session, expiresAt: new Date(at).toISOString() }));
  }, expiresAt);
}

test('a token the gateway no longer accepts, or one that ran out, brings the sign-in page with "session expired"', async () => {
  const revoked = (await token(page))!;
  assert.equal((await kit.gw.request('POST', '/api/auth/logout', { token: revoked })).status, 204, 'revoked behind the console\'s back');
  // A page that loads from the API: its first call gets 401.
  await nav(page).getByText('Credentials').click();
  await page.getByText(EXPIRED).waitFor();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  assert.equal(await token(page), null);
  await screenshot(page, 'session-expired');

  await signInAsAdmin(page);
  assert.equal(await page.getByText(EXPIRED).count(), 0, 'the message goes once signed in again');
  await setStoredExpiry(page, Date.now() - 1000);
  await page.reload();
  await page.getByText(EXPIRED).waitFor();
  assert.equal(await token(page), null, 'a stored session past its expiry is dropped on load, and said so');

  await signInAsAdmin(page);
  await setStoredExpiry(page, Date.now() + 2000);
  await page.reload();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  await page.getByText(EXPIRED).waitFor({ timeout: 10_000 });
  assert.equal(await token(page), null, 'the console signs out when the token runs out, without waiting for a click');
  await signInAsAdmin(page);
});

test('signing out revokes the token and returns to the sign-in form', async () => {
  const before = (await token(page))!;
  assert.equal((await kit.gw.request('GET', '/api/auth/me', { token: before })).status, 200);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByText('You are signed out.').waitFor();
  assert.equal(await token(page), null);
  assert.equal((await kit.gw.request('GET', '/api/auth/me', { token: before })).status, 401);
});

test('repeated failures end in a clear 429 message', async () => {
  for (let i = 0; i < 8; i++) {
    await signIn(page, 'admin', `wrong-${i}`);
    const message = page.locator('.message.error');
    await message.waitFor();
    if (/Too many failed sign-ins/.test((await message.textContent()) ?? '')) return;
    await page.waitForTimeout(50);
  }
  assert.fail('no 429 message after 8 failures');
});
