export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFields = Record<string, unknown>;

/** Structured logger: one JSON object per line. Fields named like secrets are redacted. */
export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line. */
  child(fields: LogFields): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SECRET_KEY = /pass(word)?|secret|token|authorization|cookie|master.?key|sealed|credential.?value/i;

/** Replaces the value of every field whose name looks like a secret, at any depth. */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) && v !== null && v !== undefined && typeof v !== 'boolean' ? '[redacted]' : redact(v, depth + 1);
  }
  return out;
}

export interface LoggerOptions {
  level: LogLevel;
  /** Where lines go; default stdout. */
  write?: (line: string) => void;
}

export function createLogger(options: LoggerOptions, bound: LogFields = {}): Logger {
  const threshold = RANK[options.level];
  const write = options.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const emit = (level: Exclude<LogLevel, 'silent'>, message: string, fields?: LogFields) => {
    if (RANK[level] < threshold) return;
    const record = redact({ time: new Date().toISOString(), level, msg: message, ...bound, ...fields });
    write(JSON.stringify(record));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}
