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

export const START_SCAN_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['range'],
  properties: {
    range: {
      type: 'string',
      minLength: 1,
      maxLength: 2000,
      description: 'Comma-separated IPv4 targets: single addresses, CIDR (10.0.0.0/24), dashed (10.0.0.1-10.0.0.50) or last-octet (10.0.0.1-50) ranges',
      examples: ['192.168.1.0/24', '10.0.0.1-50,10.0.1.7'],
    },
    credentialId: { type: 'string', minLength: 1, description: 'Sign in with this credential only; default: the default credential, then the others' },
    timeoutMs: {
      type: 'integer',
      minimum: 50,
      maximum: 60000,
      description: 'Connect timeout per probe before any round trip is measured, and its most; it adapts to the round trips measured on the scan (bounded by the site configuration)',
    },
    concurrency: { type: 'integer', minimum: 1, maximum: 65536, description: 'Probes in flight at most (bounded by the site configuration and ulimit -n)' },
  },
};
