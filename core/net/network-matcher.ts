/** CIDR and single-address lists matched against peer addresses (IPv4 and IPv6): SOAP callers and receivers, CIRA proxy sources. */
import { BlockList, isIP } from 'node:net';

/** The address of a peer, with IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`) shown as IPv4. */
export function peerAddress(remoteAddress: string | undefined): string {
  const address = remoteAddress ?? '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** A matcher for addresses against CIDRs or single addresses; throws on an invalid entry, naming it by `label`. */
export function createNetworkMatcher(cidrs: string[], label = 'allowedClients entry'): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of cidrs) {
    const [address = '', prefixText] = entry.split('/');
    const family = isIP(address);
    const prefix = prefixText === undefined ? undefined : Number(prefixText);
    const max = family === 6 ? 128 : 32;
    if (family === 0 || (prefix !== undefined && (!Number.isInteger(prefix) || prefix < 0 || prefix > max))) {
      throw new Error(`${label} '${entry}' is not an IP address or CIDR`);
    }
    const type = family === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return (address) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}
