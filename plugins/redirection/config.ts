/** Options of the redirection plugin (`plugins.redirection.options`). */
export interface RedirectionConfig {
  /** Bounds of every device exchange (features, consent, a session's sign-in). */
  device: { connectTimeoutMs: number; requestTimeoutMs: number; credentialAttempts: number };
  /** A session's WebSocket ticket is valid this long and once. */
  ticketTtlSeconds: number;
  /** Tickets issued and not yet used, at most (each expires by itself). */
  maxTickets: number;
  /** Sessions open at once on this gateway, at most. */
  maxSessions: number;
  /** A session whose viewer sends nothing for this long is ended. */
  idleTimeoutSeconds: number;
  /** How often open sessions check that their user still exists and holds `remote:connect`. */
  userCheckMs: number;
  /**
   * Origins (`https://console.example`) whose pages may open a session's WebSocket besides the
   * gateway's own; a browser's request from any other origin is refused (cross-site WebSocket hijacking).
   */
  origins: string[];
}

export const REDIRECTION_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    device: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        connectTimeoutMs: { type: 'integer', minimum: 50, maximum: 60000, default: 3000 },
        requestTimeoutMs: { type: 'integer', minimum: 100, maximum: 120000, default: 15000 },
        credentialAttempts: { type: 'integer', minimum: 1, maximum: 9, default: 3 },
      },
    },
    ticketTtlSeconds: { type: 'integer', minimum: 1, maximum: 300, default: 60 },
    maxTickets: { type: 'integer', minimum: 1, maximum: 100000, default: 1000 },
    maxSessions: { type: 'integer', minimum: 1, maximum: 10000, default: 500 },
    idleTimeoutSeconds: { type: 'integer', minimum: 1, maximum: 86400, default: 900 },
    userCheckMs: { type: 'integer', minimum: 50, maximum: 60000, default: 2000 },
    origins: { type: 'array', maxItems: 64, default: [], items: { type: 'string', pattern: '^https?://[^/]+$' } },
  },
};
