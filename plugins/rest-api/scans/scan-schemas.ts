import { Type, type Static } from '@sinclair/typebox';

export const SCAN_SCHEMA = {
  type: 'object',
  required: ['id', 'range', 'status', 'total', 'scanned', 'found', 'startedAt'],
  properties: {
    id: { type: 'string' },
    range: { type: 'string' },
    status: { enum: ['running', 'completed', 'cancelled', 'failed', 'interrupted'], description: '`interrupted`: the process stopped while the scan ran (set on the next start)' },
    total: { type: 'integer', description: 'Addresses in the range' },
    scanned: { type: 'integer', description: 'Addresses probed so far' },
    found: { type: 'integer', description: 'AMT devices found and recorded so far' },
    startedAt: { type: 'string', format: 'date-time' },
    finishedAt: { type: 'string', format: 'date-time' },
    error: { type: 'string' },
  },
};

export const START_SCAN_SCHEMA = Type.Object(
  {
    range: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'Comma-separated IPv4 targets: single addresses, CIDR (10.0.0.0/24), dashed (10.0.0.1-10.0.0.50) or last-octet (10.0.0.1-50) ranges',
      examples: ['192.168.1.0/24', '10.0.0.1-50,10.0.1.7'],
    }),
    credentialId: Type.Optional(Type.String({ minLength: 1, description: 'Sign in with this credential only; default: the default credential, then the others' })),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 50,
        maximum: 60000,
        description: 'Connect timeout per probe before any round trip is measured, and its most; it adapts to the round trips measured on the scan (bounded by the site configuration)',
      }),
    ),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 65536, description: 'Probes in flight at most (bounded by the site configuration and ulimit -n)' })),
  },
  { additionalProperties: false },
);

/** What `POST /api/scan/start` takes. */
export type StartScanRequest = Static<typeof START_SCAN_SCHEMA>;

export const SCANS_QUERY = Type.Object({ offset: Type.Integer({ minimum: 0, default: 0 }), limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }) });
