/** Options of the web-console plugin (`plugins.web-console.options`). */
export interface WebConsoleConfig {
  /** Where `npm run build:web` wrote the bundle; null: `<package root>/dist/web-console`. */
  bundleDir: string | null;
  /**
   * With no bundle in `bundleDir`, or (in a checkout) one older than the client sources, build one in
   * memory at start (needs esbuild and the client sources: a checkout, not an installed package).
   */
  buildIfMissing: boolean;
}

export const WEB_CONSOLE_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    bundleDir: { type: ['string', 'null'], default: null },
    buildIfMissing: { type: 'boolean', default: true },
  },
};
