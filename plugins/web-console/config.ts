/** Options of the web-console plugin (`plugins.web-console.options`); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { NullableString, Section } from '../../core/validation/schema-types.js';

export const WEB_CONSOLE_CONFIG_SCHEMA = Section({
  /** Where `npm run build:web` wrote the bundle; null: `<package root>/dist/web-console`. */
  bundleDir: NullableString({ default: null }),
  /**
   * With no bundle in `bundleDir`, or (in a checkout) one older than the client sources, build one in
   * memory at start (needs esbuild and the client sources: a checkout, not an installed package).
   */
  buildIfMissing: Type.Boolean({ default: true }),
});

export type WebConsoleConfig = Static<typeof WEB_CONSOLE_CONFIG_SCHEMA>;
