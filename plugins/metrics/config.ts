/** Options of the metrics plugin (`plugins.metrics.options`); the type is the schema's. */
import { Type, type Static, type TObject } from '@sinclair/typebox';
import { NullableString, Section } from '../../core/validation/schema-types.js';

const LISTENER = {
  host: Type.String({ minLength: 1, maxLength: 255, default: '127.0.0.1' }),
  port: Type.Integer({ minimum: 0, maximum: 65535 }),
  requireAuth: Type.Boolean({ default: true }),
};
type MetricsListener = Static<TObject<typeof LISTENER>>;

export const METRICS_CONFIG_SCHEMA = Section({
  /** Where the exposition is served on the main listener (ignored when `listener` is set). */
  path: Type.String({ pattern: '^/[A-Za-z0-9._/-]*$', maxLength: 256, default: '/metrics' }),
  /** A bearer token scrapers may send instead of a user's token with `metrics:read`; null: users only. */
  token: NullableString({ minLength: 16, maxLength: 4096, default: null }),
  /** A listener of its own (e.g. on a management network) serving the exposition at `path`; null: the main listener. */
  listener: Type.Unsafe<MetricsListener | null>({ type: ['object', 'null'], additionalProperties: false, required: ['port'], properties: LISTENER, default: null }),
  /** Process and Node.js metrics (`process_*`, `nodejs_*`). */
  defaultMetrics: Type.Boolean({ default: true }),
});

export type MetricsConfig = Static<typeof METRICS_CONFIG_SCHEMA>;
