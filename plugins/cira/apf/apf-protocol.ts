/** APF (AMT Port Forwarding) message numbers and codes: `shared/AMT-NOTES.md`, "CIRA: APF over TLS". */
export const ApfType = {
  DISCONNECT: 1,
  SERVICE_REQUEST: 5,
  SERVICE_ACCEPT: 6,
  USERAUTH_REQUEST: 50,
  USERAUTH_FAILURE: 51,
  USERAUTH_SUCCESS: 52,
  GLOBAL_REQUEST: 80,
  REQUEST_SUCCESS: 81,
  REQUEST_FAILURE: 82,
  CHANNEL_OPEN: 90,
  CHANNEL_OPEN_CONFIRMATION: 91,
  CHANNEL_OPEN_FAILURE: 92,
  CHANNEL_WINDOW_ADJUST: 93,
  CHANNEL_DATA: 94,
  CHANNEL_CLOSE: 97,
  PROTOCOLVERSION: 192,
  KEEPALIVE_REQUEST: 208,
  KEEPALIVE_REPLY: 209,
  KEEPALIVE_OPTIONS_REQUEST: 210,
  KEEPALIVE_OPTIONS_REPLY: 211,
} as const;

/** DISCONNECT reason codes (SSH numbering, as AMT uses them). */
export const DisconnectReason = {
  PROTOCOL_ERROR: 2,
  SERVICE_NOT_AVAILABLE: 7,
  BY_APPLICATION: 11,
  AUTH_CANCELLED: 13,
  CONNECTION_TIMED_OUT: 16,
} as const;

/** CHANNEL_OPEN_FAILURE reason codes. */
export const OpenFailureReason = {
  ADMINISTRATIVELY_PROHIBITED: 1,
  CONNECT_FAILED: 2,
  UNKNOWN_CHANNEL_TYPE: 3,
  RESOURCE_SHORTAGE: 4,
} as const;

export const AUTH_SERVICE = 'auth@amt.intel.com';
export const PFWD_SERVICE = 'pfwd@amt.intel.com';
export const TCPIP_FORWARD = 'tcpip-forward';
export const CANCEL_TCPIP_FORWARD = 'cancel-tcpip-forward';
export const UDP_SEND_TO = 'udp-send-to@amt.intel.com';
export const FORWARDED_TCPIP = 'forwarded-tcpip';

/** Largest value of a uint32 window; windows never grow past it. */
export const MAX_WINDOW = 0xffff_ffff;
