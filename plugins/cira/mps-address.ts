import { hostname } from 'node:os';

/** The CIRA port devices are provisioned with unless told otherwise; an address on it needs no `:port`. */
export const STANDARD_CIRA_PORT = 4433;

/**
 * The address devices dial in at, as SOAP notifications report it (`MpsAddress`): the configured
 * public address as written, else the listener's host (the machine's hostname when it is bound to
 * every address, which no device can dial), with `:port` unless it is the standard 4433.
 */
export function ciraMpsAddress(publicAddress: string | null, listening: { host: string; port: number } | null): string {
  if (publicAddress) return publicAddress;
  const bound = listening?.host ?? '';
  const host = bound === '' || bound === '0.0.0.0' || bound === '::' ? hostname() : bound;
  const port = listening?.port ?? STANDARD_CIRA_PORT;
  if (port === STANDARD_CIRA_PORT) return host;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

