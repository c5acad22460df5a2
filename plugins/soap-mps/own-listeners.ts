/**
 * Whether an address and port reach one of this gateway's own listeners (`site.listeners()`): the
 * listener's own address, or, for a listener bound to every interface, any address of this host
 * (loopback included). A notification must never be a request to the gateway itself.
 */
import { networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import type { ListenerAddress } from '../../core/plugin-api.js';
import { unmapped } from './addresses.js';

const WILDCARDS = new Set(['0.0.0.0', '::']);
const isLoopback = (address: string) => (isIP(address) === 4 ? address.startsWith('127.') : address === '::1');

/** The addresses of this host's interfaces, read when asked (interfaces come and go). */
function interfaceAddresses(): Set<string> {
  const addresses = new Set<string>();
  for (const list of Object.values(networkInterfaces())) for (const entry of list ?? []) addresses.add(unmapped(entry.address.replace(/%.*$/, '')));
  return addresses;
}

export function ownListenerMatcher(listeners: () => ReadonlyArray<ListenerAddress>, localAddresses: () => Set<string> = interfaceAddresses): (address: string, port: number) => boolean {
  return (address, port) => {
    const target = unmapped(address);
    const onPort = listeners().filter((l) => l.port === port);
    if (onPort.length === 0) return false;
    const local = () => isLoopback(target) || localAddresses().has(target);
    return onPort.some((l) => unmapped(l.host) === target || (WILDCARDS.has(l.host) && local()));
  };
}
