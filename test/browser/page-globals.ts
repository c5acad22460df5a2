/**
 * The few browser globals the tests' in-page callbacks (page.evaluate, waitForFunction) use, typed
 * here because the project compiles for Node without the DOM library. Only for code that runs in the page.
 */
export interface PageElement {
  textContent: string | null;
  scrollTop: number;
  scrollHeight: number;
}

export interface PageGlobals {
  document: {
    querySelector(selector: string): PageElement | null;
    querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  };
  sessionStorage: { getItem(key: string): string | null; setItem(key: string, value: string): void };
  requestAnimationFrame(callback: (time: number) => void): number;
  performance: { now(): number; getEntriesByName(name: string): Array<{ startTime: number }> };
  PerformanceObserver: new (callback: (list: { getEntries(): Array<{ duration: number }> }) => void) => { observe(options: { type: string }): void; disconnect(): void };
}

// Use as `(globalThis as unknown as PageGlobals)` inside the callback: the callback's source is sent
// to the page, so it may reference nothing from this module but the erased type.
