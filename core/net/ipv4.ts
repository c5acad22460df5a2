/** IPv4 addresses as unsigned 32-bit numbers, and CIDR blocks. */

const OCTET = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** Parses dotted-quad IPv4; undefined when malformed (no leading zeros, four octets 0-255). */
export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => OCTET.test(p))) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

export function formatIpv4(value: number): string {
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

export interface Cidr {
  base: number;
  prefix: number;
  first: number;
  last: number;
}

/** Parses `a.b.c.d/n`; undefined when malformed. The base is masked to the block. */
export function parseCidr(text: string): Cidr | undefined {
  const [address, bits, extra] = text.split('/');
  if (extra !== undefined || address === undefined || bits === undefined || !/^\d{1,2}$/.test(bits)) return undefined;
  const base = parseIpv4(address);
  const prefix = Number(bits);
  if (base === undefined || prefix > 32) return undefined;
  const size = 2 ** (32 - prefix);
  const first = Math.floor(base / size) * size;
  return { base, prefix, first, last: first + size - 1 };
}

/** True when every address from `first` to `last` lies inside one of the blocks. */
export function insideNetworks(first: number, last: number, networks: readonly Cidr[]): boolean {
  return networks.some((n) => first >= n.first && last <= n.last);
}
