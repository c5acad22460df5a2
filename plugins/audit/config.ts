/** Options of the audit plugin (`plugins.audit.options`); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { NullableString, Section } from '../../core/validation/schema-types.js';

export const AUDIT_CONFIG_SCHEMA = Section({
  retention: Section({
    /** Records older than this are deleted; 0 keeps them whatever their age. */
    maxAgeDays: Type.Integer({ minimum: 0, maximum: 36500, default: 400 }),
    /** At most this many records are kept, the oldest deleted first. */
    maxRecords: Type.Integer({ minimum: 10, maximum: 10_000_000, default: 1_000_000 }),
    /** How often the age limit is applied. */
    pruneIntervalSeconds: Type.Integer({ minimum: 1, maximum: 86400, default: 3600 }),
  }),
  /** Also append every record as one JSON line to this file (relative to the data directory), for a SIEM to tail; null: off. */
  jsonLinesFile: NullableString({ minLength: 1, maxLength: 4096, default: null }),
});

export type AuditConfig = Static<typeof AUDIT_CONFIG_SCHEMA>;
