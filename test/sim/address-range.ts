/** IPv4 address arithmetic for the simulated fleet: consecutive addresses, skipping .0 and .255. */

export function ipv4ToInt(address: string): number {
  const parts = address.split('.').map((p) => Number(p));
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) {
    throw new Error(`not an IPv4 address: ${address}`);
  }
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

export function intToIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

/**
 * `count` consecutive addresses from `base`, skipping those ending in .0 or .255 so that every device
 * also falls inside the host part of any /24 a scan covers. Only loopback (127/8) is allowed.
 */
export function fleetAddresses(base: string, count: number): string[] {
  let value = ipv4ToInt(base);
  const out: string[] = [];
  while (out.length < count) {
    const last = value & 255;
    if (last !== 0 && last !== 255) out.push(intToIpv4(value));
    value = (value + 1) >>> 0;
    if (value >>> 24 !== 127) throw new Error(`fleet from ${base} with ${count} devices leaves 127.0.0.0/8`);
  }
  return out;
}
