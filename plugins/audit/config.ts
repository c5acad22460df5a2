/** Options of the audit plugin (`plugins.audit.options`); the type is the schema's. */
import { Type, type Static } from '@sinclair/typebox';
import { NullableString, Section } from '../../core/validation/schema-types.js';

export const AUDIT_CONFIG_SCHEMA = Section({
  /** Operator records: what signed-in users and the kernel did. */
  retention: Section({
    /** Records older than this are deleted; 0 keeps them whatever their age. */
    maxAgeDays: Type.Integer({ minimum: 0, maximum: 36500, default: 400 }),
    /** At most this many operator records are kept, the oldest deleted first. */
    maxRecords: Type.Integer({ minimum: 10, maximum: 10_000_000, default: 1_000_000 }),
    /** How often the age limits are applied. */
    pruneIntervalSeconds: Type.Integer({ minimum: 1, maximum: 86400, default: 3600 }),
  }),
  /** Failed and refused sign-ins: a class of their own, aggregated, with bounds of their own. */
  signInFailures: Section({
    /** One record per client address and door for each window this long. */
    windowSeconds: Type.Integer({ minimum: 1, maximum: 86400, default: 60 }),
    /** At most this many records of the class are kept, the oldest deleted first. */
    maxRecords: Type.Integer({ minimum: 10, maximum: 10_000_000, default: 100_000 }),
    /** Records older than this are deleted; 0 keeps them whatever their age. */
    maxAgeDays: Type.Integer({ minimum: 0, maximum: 36500, default: 90 }),
  }),
  /** Also append every record as one JSON line to this file (relative to the data directory), for a SIEM to tail; null: off. */
  jsonLinesFile: NullableString({ minLength: 1, maxLength: 4096, default: null }),
});

export type AuditConfig = Static<typeof AUDIT_CONFIG_SCHEMA>;
