/** Options of the metrics plugin (`plugins.metrics.options`). */
export interface MetricsConfig {
  /** Where the exposition is served on the main listener (ignored when `listener` is set). */
  path: string;
  /** A bearer token scrapers may send instead of a user's token with `metrics:read`; null: users only. */
  token: string | null;
  /** A listener of its own (e.g. on a management network) serving the exposition at `path`; null: the main listener. */
  listener: { host: string; port: number; requireAuth: boolean } | null;
  /** Process and Node.js metrics (`process_*`, `nodejs_*`). */
  defaultMetrics: boolean;
}

export const METRICS_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    path: { type: 'string', pattern: '^/[A-Za-z0-9._/-]*$', maxLength: 256, default: '/metrics' },
    token: { type: ['string', 'null'], minLength: 16, maxLength: 4096, default: null },
    listener: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['port'],
      properties: {
        host: { type: 'string', minLength: 1, maxLength: 255, default: '127.0.0.1' },
        port: { type: 'integer', minimum: 0, maximum: 65535 },
        requireAuth: { type: 'boolean', default: true },
      },
      default: null,
    },
    defaultMetrics: { type: 'boolean', default: true },
  },
};
