/**
 * The allowed networks (`allowedNetworks`) for every device path: scans check their range with it, and every other
 * device I/O (device operations, diagnostics, the online monitor's probes) asks this guard first.
 */
import { insideNetworks, parseCidr, parseIpv4, type Cidr } from '../../../core/net/ipv4.js';
import { DeviceErrors } from '../errors.js';

export interface NetworkGuard {
  /** True when the address is an IPv4 address inside the allowed networks. */
  allows(address: string): boolean;
  /** @throws HttpError 422 `GW_ERR_ADDRESS_NOT_ALLOWED` for an address outside the allowed networks. */
  check(address: string): void;
}

export function createNetworkGuard(allowedNetworks: readonly string[]): NetworkGuard {
  const networks = allowedNetworks.map(parseCidr).filter((n): n is Cidr => n !== undefined);
  const allows = (address: string): boolean => {
    const ip = parseIpv4(address);
    return ip !== undefined && insideNetworks(ip, ip, networks);
  };
  return {
    allows,
    check(address) {
      if (!allows(address)) throw DeviceErrors.addressNotAllowed(address);
    },
  };
}
