/**
 * The PROXY protocol version 2 header (haproxy.org, doc/proxy-protocol.txt, section 2.2) that
 * HAProxy sends before a connection's bytes with `send-proxy-v2`: the device's own address and
 * port, which the plain APF listener uses as the tunnel's remote address. Only what HAProxy sends
 * for a proxied TCP connection is accepted: command PROXY, TCP over IPv4 or IPv6. LOCAL (the proxy's
 * own health checks), UDP and unix-socket sources carry no device address and are refused. TLVs
 * after the addresses are skipped unread. Judged byte by byte: the first byte that cannot start a
 * v2 header refuses the connection, without waiting for more.
 *
 * Written here because the npm parsers are unmaintained (proxy-protocol-js, last release 2022;
 * @balena/proxy-protocol-parser on ip-address 5) and the part needed is short.
 */
import type { PreludeVerdict } from './prelude.js';

export const PROXY_V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const FIXED_BYTES = 16;
const VERSION_2 = 0x2;
const COMMAND_LOCAL = 0x0;
const COMMAND_PROXY = 0x1;
const FAMILY_INET = 0x1;
const FAMILY_INET6 = 0x2;
const TRANSPORT_STREAM = 0x1;
const ADDRESS_BYTES: Record<number, number> = { [FAMILY_INET]: 12, [FAMILY_INET6]: 36 };

export interface ProxySource {
  address: string;
  port: number;
}

/** Parses the header at the start of `bytes`, at most `maxBytes` long with its TLVs. */
export function parseProxyV2Header(bytes: Buffer, maxBytes: number): PreludeVerdict<ProxySource> {
  const signatureSeen = Math.min(bytes.length, PROXY_V2_SIGNATURE.length);
  if (!bytes.subarray(0, signatureSeen).equals(PROXY_V2_SIGNATURE.subarray(0, signatureSeen))) return refused('no PROXY v2 signature');
  if (bytes.length < FIXED_BYTES) return { kind: 'need-more' };
  const version = bytes[12]! >> 4;
  const command = bytes[12]! & 0x0f;
  const family = bytes[13]! >> 4;
  const transport = bytes[13]! & 0x0f;
  const length = bytes.readUInt16BE(14);
  if (version !== VERSION_2) return refused(`PROXY protocol version ${version}`);
  if (command === COMMAND_LOCAL) return refused('PROXY v2 LOCAL command: no device address');
  if (command !== COMMAND_PROXY) return refused(`PROXY v2 command ${command}`);
  const addressBytes = ADDRESS_BYTES[family];
  if (addressBytes === undefined || transport !== TRANSPORT_STREAM) return refused(`PROXY v2 family ${family} transport ${transport}: not TCP over IPv4 or IPv6`);
  if (length < addressBytes) return refused(`PROXY v2 length ${length} shorter than its addresses (${addressBytes})`);
  if (FIXED_BYTES + length > maxBytes) return refused(`PROXY v2 header of ${FIXED_BYTES + length} bytes exceeds ${maxBytes}`);
  if (bytes.length < FIXED_BYTES + length) return { kind: 'need-more' };
  const source = family === FAMILY_INET ? sourceV4(bytes) : sourceV6(bytes);
  return { kind: 'accepted', value: source, consumed: FIXED_BYTES + length };
}

const refused = (reason: string): PreludeVerdict<ProxySource> => ({ kind: 'refused', reason });

function sourceV4(bytes: Buffer): ProxySource {
  return { address: [...bytes.subarray(16, 20)].join('.'), port: bytes.readUInt16BE(24) };
}

/** As Node names a peer: compressed IPv6, an IPv4-mapped address as `::ffff:a.b.c.d`. */
function sourceV6(bytes: Buffer): ProxySource {
  const raw = bytes.subarray(16, 32);
  const port = bytes.readUInt16BE(48);
  const mapped = raw.subarray(0, 10).every((b) => b === 0) && raw[10] === 0xff && raw[11] === 0xff;
  if (mapped) return { address: `::ffff:${[...raw.subarray(12)].join('.')}`, port };
  const groups = Array.from({ length: 8 }, (_, i) => raw.readUInt16BE(i * 2).toString(16));
  return { address: new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1), port };
}
