/** Maps undici and socket errors to typed protocol errors. */
import { AmtError } from './errors.js';

const CONNECT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EADDRINUSE']);
const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function isTlsFailure(error: unknown, code: string | undefined): boolean {
  if (code === undefined) return false;
  if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS')) return true;
  // OpenSSL verification codes surface as bare upper-case names.
  return /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_OSSL/.test(code) && !(error instanceof AmtError);
}

/**
 * The typed error for anything a request threw. `target` names the device (`host:port`) for messages.
 * `connected` says whether a socket had been established, so a reset before any byte is a connect error.
 */
export function classifyTransportError(error: unknown, target: string, connected: boolean): AmtError {
  if (error instanceof AmtError) return error;
  const code = codeOf(error);
  const cause = code !== undefined ? { cause: code } : {};
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new AmtError('AMT_ERR_CONNECT', `connect to ${target} timed out`, { phase: 'connect', cause: code });
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new AmtError('AMT_ERR_TIMEOUT', `no response from ${target} within the first-byte timeout`, { phase: 'first-byte', cause: code });
    case 'UND_ERR_BODY_TIMEOUT':
      return new AmtError('AMT_ERR_TIMEOUT', `response body from ${target} stalled`, { phase: 'body', cause: code });
    case 'UND_ERR_RES_EXCEEDED_MAX_SIZE':
      return new AmtError('AMT_ERR_TOO_LARGE', `response from ${target} exceeds the size limit`, cause);
    case 'UND_ERR_HEADERS_OVERFLOW':
      return new AmtError('AMT_ERR_TOO_LARGE', `response headers from ${target} exceed the size limit`, cause);
    case 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH':
      return new AmtError('AMT_ERR_BAD_RESPONSE', `response from ${target} does not match its Content-Length`, cause);
  }
  if (code !== undefined && (code.startsWith('HPE_') || code === 'UND_ERR_INFO')) {
    return new AmtError('AMT_ERR_BAD_RESPONSE', `${target} did not answer with valid HTTP`, cause);
  }
  if ((error as Error | null)?.name === 'HTTPParserError') {
    return new AmtError('AMT_ERR_BAD_RESPONSE', `${target} did not answer with valid HTTP`, cause);
  }
  if (code === 'ERR_SSL_UNSAFE_LEGACY_RENEGOTIATION_DISABLED') {
    // Old firmware without RFC 5746; only the site's legacy TLS switch allows it.
    return new AmtError('AMT_ERR_TLS', `TLS with ${target} failed: the device does not support secure renegotiation (old firmware); enable the devices plugin's legacyTls`, cause);
  }
  if (isTlsFailure(error, code)) return new AmtError('AMT_ERR_TLS', `TLS with ${target} failed`, cause);
  if (code !== undefined && CONNECT_CODES.has(code)) return new AmtError('AMT_ERR_CONNECT', `cannot connect to ${target}`, cause);
  if (code !== undefined && LOST_CODES.has(code)) {
    return connected
      ? new AmtError('AMT_ERR_CONNECTION_LOST', `connection to ${target} was lost`, cause)
      : new AmtError('AMT_ERR_CONNECT', `cannot connect to ${target}`, cause);
  }
  return new AmtError('AMT_ERR_CONNECTION_LOST', `request to ${target} failed`, cause);
}
