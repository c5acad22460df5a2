/**
 * What the console's browser tests share: Debian's Chromium driven by playwright-core, a gateway
 * with every plugin the console shows, a simulated fleet on its own loopback block, and a recorder
 * of every response body and WebSocket frame the page saw (to prove a secret never comes back).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startFleet, type Fleet } from '../sim/fleet.js';
import type { FleetOptions } from '../sim/fleet-options.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway-harness.js';
import { SIM_AMT_SETTINGS, SIM_RMCP_PORT } from '../helpers/scan-helpers.js';
import { mergeConfig } from '../../core/config/load-config.js';

export const CHROMIUM_PATHS = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((p): p is string => Boolean(p));

export function chromiumPath(): string | undefined {
  return CHROMIUM_PATHS.find((p) => existsSync(p));
}

/** Where screenshots go: AMTGW_SCREENSHOT_DIR (docs/screenshots to refresh the README's), else a temp folder. */
export const SCREENSHOT_DIR = resolve(process.env.AMTGW_SCREENSHOT_DIR ?? join(tmpdir(), 'amtgw-console-screenshots'));

export const CONSOLE_PLUGINS = ['rest-api', 'route-permissions', 'scan-hub', 'remote-monitor', 'power-mgmt', 'web-console', 'audit'];

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error(`no Chromium at ${CHROMIUM_PATHS.join(', ')}: apt-get install chromium, or set CHROMIUM_PATH`);
  return chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

export interface Recorded {
  url: string;
  text: string;
}

/** Content-Security-Policy violations the pages reported (Chromium logs each as a console error). */
export const cspViolations: string[] = [];

/** A browser context whose pages record every response body and WebSocket frame they receive. */
export async function recordingContext(browser: Browser, recorded: Recorded[]): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  context.on('page', (page) => watch(page, recorded));
  return context;
}

function watch(page: Page, recorded: Recorded[]): void {
  page.on('dialog', (dialog) => void dialog.accept());
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  page.on('response', (res) => {
    res.text().then(
      (text) => recorded.push({ url: res.url(), text }),
      () => {},
    );
  });
  page.on('websocket', (ws) => {
    ws.on('framereceived', (frame) => recorded.push({ url: ws.url(), text: String(frame.payload) }));
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

export interface ConsoleFleet {
  fleet: Fleet;
  gw: TestGateway;
  stop(): Promise<void>;
}

export async function startConsoleGateway(fleetOptions: FleetOptions, overrides: Record<string, unknown> = {}): Promise<ConsoleFleet> {
  const fleet = await startFleet({ rmcpPort: SIM_RMCP_PORT, ...fleetOptions });
  try {
    const gw = await startTestGateway({
      plugins: CONSOLE_PLUGINS,
      // A bundle folder that does not exist: the console is built from the sources being tested, never a stale dist/.
      overrides: mergeConfig(mergeConfig(SIM_AMT_SETTINGS, { plugins: { 'web-console': { options: { bundleDir: join(tmpdir(), `amtgw-no-bundle-${randomUUID()}`) } } } }), overrides),
    });
    return {
      fleet,
      gw,
      async stop() {
        await gw.cleanup();
        await fleet.stop();
      },
    };
  } catch (err) {
    await fleet.stop();
    throw err;
  }
}
