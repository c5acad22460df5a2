/**
 * Typed errors of the AMT protocol layer. Inside a worker they are thrown as {@link AmtError};
 * across the worker boundary they travel as plain {@link AmtFailure} objects (structured-clone-able).
 * No message ever contains a password: messages are built from fixed text, addresses and codes only.
 */

export type AmtErrorCode =
  /** TCP/TLS connection could not be established (refused, unreachable, connect timeout). */
  | 'AMT_ERR_CONNECT'
  /** The connection dropped in the middle of an exchange. */
  | 'AMT_ERR_CONNECTION_LOST'
  /** First byte or total time of a request exceeded its bound. */
  | 'AMT_ERR_TIMEOUT'
  /** The response body exceeded the configured maximum size. */
  | 'AMT_ERR_TOO_LARGE'
  /** Not HTTP, not XML, not a WS-Management envelope, or missing what the operation needs. */
  | 'AMT_ERR_BAD_RESPONSE'
  /** An HTTP status the protocol does not expect (e.g. 404, 500 without a SOAP Fault). */
  | 'AMT_ERR_HTTP_STATUS'
  /** The device answered with a SOAP Fault (see `subcode` and `reason`). */
  | 'AMT_ERR_FAULT'
  /** The device refused the credentials (a second 401 after a fresh challenge). */
  | 'AMT_ERR_UNAUTHORIZED'
  /** The device refused a signed request with a page saying the account is locked (anti-hammering). */
  | 'AMT_ERR_LOCKED_OUT'
  /** The peer answered a request the gateway meant to sign without ever asking for Digest authentication: not AMT, or an impostor. */
  | 'AMT_ERR_NO_CHALLENGE'
  /** TLS handshake or certificate validation failed. */
  | 'AMT_ERR_TLS'
  /** The device presented a certificate whose fingerprint differs from the pinned one. */
  | 'AMT_ERR_TLS_PIN_MISMATCH'
  /** The device has a session of this kind open already (redirection: StartRedirectionSession status 2). */
  | 'AMT_ERR_BUSY'
  /** The device does not offer this now (redirection: the feature is disabled, status 3). */
  | 'AMT_ERR_UNSUPPORTED'
  /** The caller cancelled the operation. */
  | 'AMT_ERR_CANCELLED'
  /** The task input was malformed. */
  | 'AMT_ERR_INVALID_INPUT'
  /** A fault of the gateway itself (a bug), never of the device. */
  | 'AMT_ERR_INTERNAL';

/** Which bound a timeout hit. */
export type TimeoutPhase = 'connect' | 'tls-handshake' | 'first-byte' | 'body' | 'total';

/** Extra structured detail an error may carry. */
export interface AmtErrorDetail {
  /** HTTP status, when a response was received. */
  status?: number;
  /** SOAP fault subcode without namespace prefix, e.g. `DestinationUnreachable`. */
  subcode?: string;
  /** SOAP fault reason text. */
  reason?: string;
  /** Which bound a timeout hit. */
  phase?: TimeoutPhase;
  /** The pinned fingerprint (pin mismatch). */
  expectedFingerprint?: string;
  /** The fingerprint the device presented (pin mismatch). */
  observedFingerprint?: string;
  /** Low-level cause code (e.g. `ECONNREFUSED`, `UND_ERR_SOCKET`), never a message from the peer. */
  cause?: string;
  /** The TLS version a device offers that the site does not accept (`TLSv1`, `TLSv1.1`): enable the devices plugin's `legacyTls`. */
  tlsVersion?: string;
}

/** A protocol failure as plain data: what tasks return across the worker boundary. */
export interface AmtFailure extends AmtErrorDetail {
  code: AmtErrorCode;
  message: string;
}

/** The error thrown inside the protocol layer. */
export class AmtError extends Error {
  readonly code: AmtErrorCode;
  readonly detail: AmtErrorDetail;

  constructor(code: AmtErrorCode, message: string, detail: AmtErrorDetail = {}) {
    super(message);
    this.name = 'AmtError';
    this.code = code;
    this.detail = detail;
  }

  /** The structured-clone-able form of this error. */
  toFailure(): AmtFailure {
    return { code: this.code, message: this.message, ...this.detail };
  }
}

export function isAmtError(value: unknown): value is AmtError {
  return value instanceof AmtError;
}

/**
 * Converts anything thrown inside a task into an {@link AmtFailure}. Unknown errors keep only their
 * class name and code: their messages could quote input we do not control.
 */
export function toAmtFailure(error: unknown): AmtFailure {
  if (error instanceof AmtError) return error.toFailure();
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  const name = error instanceof Error ? error.name : typeof error;
  return { code: 'AMT_ERR_INTERNAL', message: `unexpected ${name}`, ...(code ? { cause: code } : {}) };
}
