import type { Logger } from '../../../core/plugin-api.js';

/** Devices already logged, per gateway (its plugin logger); bounded so a huge fleet cannot grow it without end. */
const noticed = new WeakMap<Logger, Set<string>>();
const MAX_NOTICED = 100_000;

/**
 * Logs, once per device address, that a device task reached it over TLS 1.0/1.1 (possible only with
 * the devices plugin's `legacyTls` on): the site should know which devices still need the weaker protocol.
 */
export function noteLegacyTls(logger: Logger, address: string, protocol: string | null | undefined): void {
  if (protocol !== 'TLSv1' && protocol !== 'TLSv1.1' && protocol !== 'SSLv3') return;
  let seen = noticed.get(logger);
  if (!seen) noticed.set(logger, (seen = new Set()));
  if (seen.has(address)) return;
  if (seen.size >= MAX_NOTICED) seen.delete(seen.values().next().value!);
  seen.add(address);
  logger.warn('device reached over legacy TLS (legacyTls)', { address, protocol });
}
