/**
 * 7. The console's device page in Chromium with 100,000 stored devices (run: npm run bench -- console):
 * time from navigation to the first rows, frame times while scrolling the whole list quickly, and
 * a jump to the middle of the list; the same page with 20,000 stored devices is the reference.
 * Skipped without Chromium (apt-get install chromium, or CHROMIUM_PATH).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Benchmark } from './bench-context.js';
import type { Figure } from './bench-result.js';
import { ADMIN_PASSWORD, startGatewayProcess } from './gateway-process.js';
import { percentile } from './latency.js';
import { seedDevices } from './seed-devices.js';
import { chromiumPath, launchChromium } from '../browser/console-kit.js';
import type { PageGlobals } from '../browser/page-globals.js';

const LOADS = 5;
const SCROLL_FRAMES = 300;
/** Rows per frame while scrolling: a fast fling through the list. */
const ROWS_PER_FRAME = 40;
/** Enough rows that the reference scrolls as far as the full list does. */
const REFERENCE_STORED = 20_000;

interface PageFigures {
  firstRowsMs: number[];
  frameMs: number[];
  longTasks: number[];
  scrollCpuMs: number;
  jumpMs: number;
  rowsInDom: number;
}

const sorted = (v: number[]) => [...v].sort((a, b) => a - b);
const median = (v: number[]) => percentile(sorted(v), 50);

async function signedInPage(browser: Browser, url: string): Promise<Page> {
  const res = await fetch(`${url}/api/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
  const session = await res.text();
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.addInitScript((s) => (globalThis as unknown as PageGlobals).sessionStorage.setItem('amtgw.session', s), session);
  // tsx compiles with keepNames: named functions inside the callbacks below call __name, which a page lacks.
  await context.addInitScript({ content: 'globalThis.__name ??= (f) => f;' });
  return context.newPage();
}

async function firstRows(page: Page, url: string): Promise<number> {
  await page.goto(`${url}/devices`);
  await page.waitForFunction(() => (globalThis as unknown as PageGlobals).performance.getEntriesByName('devices:first-rows').length > 0, undefined, { timeout: 60_000 });
  return page.evaluate(() => (globalThis as unknown as PageGlobals).performance.getEntriesByName('devices:first-rows')[0]!.startTime);
}

/** Scrolls by ROWS_PER_FRAME rows each animation frame and records the time between frames. */
function scrollFrames(page: Page): Promise<{ frames: number[]; longTasks: number[] }> {
  return page.evaluate(
    ({ frames, step }) =>
      new Promise<{ frames: number[]; longTasks: number[] }>((resolve) => {
        const el = (globalThis as unknown as PageGlobals).document.querySelector('.devices .scroller')!;
        const out: number[] = [];
        // Long tasks: main-thread work over 50 ms, i.e. frames the page itself delayed (not the machine).
        const longTasks: number[] = [];
        const observer = new (globalThis as unknown as PageGlobals).PerformanceObserver((list) => {
          for (const e of list.getEntries()) longTasks.push(e.duration);
        });
        observer.observe({ type: 'longtask' });
        let last = 0;
        const tick = (t: number) => {
          if (last) out.push(t - last);
          last = t;
          el.scrollTop += step;
          if (out.length < frames) (globalThis as unknown as PageGlobals).requestAnimationFrame(tick);
          else {
            observer.disconnect();
            resolve({ frames: out, longTasks });
          }
        };
        (globalThis as unknown as PageGlobals).requestAnimationFrame(tick);
      }),
    { frames: SCROLL_FRAMES, step: ROWS_PER_FRAME * 34 },
  );
}

/** Jumps to the middle of the list and times until the rows there are on screen. */
function jumpToMiddle(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        const el = (globalThis as unknown as PageGlobals).document.querySelector('.devices .scroller')!;
        const started = (globalThis as unknown as PageGlobals).performance.now();
        el.scrollTop = el.scrollHeight / 2;
        const row = Math.floor(el.scrollTop / 34) + 2;
        const check = () => {
          const shown = (globalThis as unknown as PageGlobals).document.querySelector(`.devices tbody tr[aria-rowindex="${row}"] a`);
          const loading = (globalThis as unknown as PageGlobals).document.querySelectorAll('.devices td.loading').length;
          if (shown && loading === 0) resolve((globalThis as unknown as PageGlobals).performance.now() - started);
          else (globalThis as unknown as PageGlobals).requestAnimationFrame(check);
        };
        (globalThis as unknown as PageGlobals).requestAnimationFrame(check);
      }),
  );
}

async function measure(browser: Browser, dataDir: string, log: (line: string) => void): Promise<PageFigures> {
  const gateway = await startGatewayProcess({ dataDir, plugins: { 'rest-api': {}, 'route-permissions': {}, 'scan-hub': {}, 'web-console': {} } });
  try {
    const firstRowsMs: number[] = [];
    for (let i = 0; i < LOADS; i++) {
      const page = await signedInPage(browser, gateway.url);
      firstRowsMs.push(await firstRows(page, gateway.url));
      if (i < LOADS - 1) await page.context().close();
      else {
        log(`first rows: ${firstRowsMs.map((m) => m.toFixed(0)).join(', ')} ms`);
        // Renderer main-thread CPU time (CDP ThreadTime) over the scroll: what the page costs, whatever else runs on the machine.
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('Performance.enable');
        const threadTime = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'ThreadTime')?.value ?? 0;
        const cpuBefore = await threadTime();
        const { frames: frameMs, longTasks } = await scrollFrames(page);
        const scrollCpuMs = ((await threadTime()) - cpuBefore) * 1000;
        const jumpMs = await jumpToMiddle(page);
        const rowsInDom = await page.evaluate(() => (globalThis as unknown as PageGlobals).document.querySelectorAll('.devices tbody tr:not(.spacer)').length);
        await page.context().close();
        return { firstRowsMs, frameMs, longTasks, scrollCpuMs, jumpMs, rowsInDom };
      }
    }
    throw new Error('unreachable');
  } finally {
    await gateway.stop();
  }
}

export const consoleDevices: Benchmark = {
  name: 'console',
  title: 'Console device page',
  unavailable: () => (chromiumPath() ? undefined : 'no Chromium (apt-get install chromium, or set CHROMIUM_PATH)'),
  async run({ options, workDir, log }) {
    const full = join(workDir, 'full');
    const small = join(workDir, 'small');
    mkdirSync(full);
    mkdirSync(small);
    log(`seeding ${options.stored} and ${REFERENCE_STORED} devices`);
    await seedDevices(full, options.stored);
    await seedDevices(small, REFERENCE_STORED);
    const browser = await launchChromium();
    try {
      log(`device page with ${options.stored} devices`);
      const big = await measure(browser, full, log);
      log(`device page with ${REFERENCE_STORED} devices`);
      const ref = await measure(browser, small, log);
      const long = (v: number[]) => v.filter((ms) => ms > 50).length;
      const figures: Figure[] = [
        { label: 'navigation to first rows, first load', unit: 'ms', gateway: big.firstRowsMs[0]!, reference: ref.firstRowsMs[0]!, better: 'lower' },
        { label: `navigation to first rows, median of ${LOADS - 1} warm loads`, unit: 'ms', gateway: median(big.firstRowsMs.slice(1)), reference: median(ref.firstRowsMs.slice(1)), better: 'lower' },
        { label: 'scroll frame time, median', unit: 'ms', gateway: median(big.frameMs), reference: median(ref.frameMs), better: 'lower' },
        { label: 'scroll frame time, p95', unit: 'ms', gateway: percentile(sorted(big.frameMs), 95), reference: percentile(sorted(ref.frameMs), 95), better: 'lower' },
        { label: 'scroll frame time, max', unit: 'ms', gateway: Math.max(...big.frameMs), reference: Math.max(...ref.frameMs), better: 'lower' },
        { label: `frames over 50 ms (of ${SCROLL_FRAMES})`, unit: 'frames', gateway: long(big.frameMs), reference: long(ref.frameMs), better: 'lower' },
        { label: 'page main-thread CPU per scrolled frame', unit: 'ms', gateway: big.scrollCpuMs / SCROLL_FRAMES, reference: ref.scrollCpuMs / SCROLL_FRAMES, better: 'lower', note: 'CDP ThreadTime over the scroll, divided by the frames' },
        { label: 'long tasks (page script over 50 ms) while scrolling', unit: 'tasks', gateway: big.longTasks.length, reference: ref.longTasks.length, better: 'lower', note: `longest ${Math.max(0, ...big.longTasks).toFixed(0)} ms (reference ${Math.max(0, ...ref.longTasks).toFixed(0)} ms)` },
        { label: 'jump to the middle of the list until its rows show', unit: 'ms', gateway: big.jumpMs, reference: ref.jumpMs, better: 'lower' },
        { label: 'table rows in the DOM after scrolling', unit: 'rows', gateway: big.rowsInDom, reference: ref.rowsInDom, better: 'lower' },
      ];
      const notes = [
        `Headless Chromium (${browser.version()}) through playwright-core, viewport 1280×860, signed in as admin; the gateway is its own process with rest-api, route-permissions, scan-hub and web-console. First rows: performance.now() when the page first renders device rows (a performance mark), from navigation start. Scrolling: ${ROWS_PER_FRAME} rows per animation frame for ${SCROLL_FRAMES} frames, time between frames; rows come in pages of 200 (?offset=&limit=) as they scroll into view, so fast scrolling shows "loading…" rows until their page arrives.`,
        `The reference is the same page and gateway with ${REFERENCE_STORED.toLocaleString('en-US')} stored devices: the difference is what ${options.stored.toLocaleString('en-US')} devices cost the console.`,
      ];
      return { name: 'console', title: `Console device page: ${options.stored.toLocaleString('en-US')} devices stored`, reference: `the same page with ${REFERENCE_STORED.toLocaleString('en-US')} devices`, figures, notes };
    } finally {
      await browser.close();
    }
  },
};
