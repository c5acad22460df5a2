/** Options of the audit plugin (`plugins.audit.options`). */
export interface AuditConfig {
  retention: {
    /** Records older than this are deleted; 0 keeps them whatever their age. */
    maxAgeDays: number;
    /** At most this many records are kept, the oldest deleted first. */
    maxRecords: number;
    /** How often the age limit is applied. */
    pruneIntervalSeconds: number;
  };
  /** Also append every record as one JSON line to this file (relative to the data directory), for a SIEM to tail; null: off. */
  jsonLinesFile: string | null;
}

export const AUDIT_CONFIG_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    retention: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        maxAgeDays: { type: 'integer', minimum: 0, maximum: 36500, default: 400 },
        maxRecords: { type: 'integer', minimum: 10, maximum: 10_000_000, default: 1_000_000 },
        pruneIntervalSeconds: { type: 'integer', minimum: 1, maximum: 86400, default: 3600 },
      },
    },
    jsonLinesFile: { type: ['string', 'null'], minLength: 1, maxLength: 4096, default: null },
  },
};
