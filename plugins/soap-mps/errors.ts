/** The soap-mps error codes, each with the SOAP 1.1 fault code it is reported under. */
export const SOAP_ERRORS = {
  GW_ERR_SOAP_BODY_TOO_LARGE: 'Client',
  GW_ERR_SOAP_CONTENT: 'Client',
  GW_ERR_SOAP_DOCTYPE: 'Client',
  GW_ERR_SOAP_MALFORMED: 'Client',
  GW_ERR_SOAP_ENVELOPE: 'Client',
  GW_ERR_SOAP_VERSION: 'VersionMismatch',
  GW_ERR_SOAP_MUST_UNDERSTAND: 'MustUnderstand',
  GW_ERR_SOAP_ACTION: 'Client',
  GW_ERR_SOAP_UNKNOWN_OPERATION: 'Client',
  GW_ERR_SOAP_INVALID_MESSAGE: 'Client',
  GW_ERR_SOAP_UNKNOWN_CONTEXT: 'Client',
  GW_ERR_SOAP_TOO_MANY_CONTEXTS: 'Server',
  GW_ERR_SOAP_TOO_MANY_CALLER_CONTEXTS: 'Client',
  GW_ERR_SOAP_INVALID_DELIVERY: 'Client',
  GW_ERR_SOAP_DELIVERY_NOT_ALLOWED: 'Client',
  GW_ERR_SOAP_UNKNOWN_SUBSCRIPTION: 'Client',
  GW_ERR_SOAP_TOO_MANY_SUBSCRIPTIONS: 'Server',
  GW_ERR_SOAP_TOO_MANY_CALLER_SUBSCRIPTIONS: 'Client',
  GW_ERR_SOAP_INTERNAL: 'Server',
} as const;

export type SoapErrorCode = keyof typeof SOAP_ERRORS;
export type SoapFaultCode = (typeof SOAP_ERRORS)[SoapErrorCode];

/**
 * A failure reported to the caller as a SOAP 1.1 Fault (HTTP 500). `message` becomes the
 * `faultstring`, so it names the problem and never carries a secret.
 */
export class SoapFault extends Error {
  readonly code: SoapErrorCode;
  readonly faultCode: SoapFaultCode;
  /** Close the connection after the fault (the rest of the request body is not read). */
  readonly closeConnection: boolean;

  constructor(code: SoapErrorCode, message: string, options: { closeConnection?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SoapFault';
    this.code = code;
    this.faultCode = SOAP_ERRORS[code];
    this.closeConnection = options.closeConnection ?? false;
  }
}
