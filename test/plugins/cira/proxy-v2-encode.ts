/**
 * Builds PROXY protocol v2 headers for tests, from the specification (haproxy.org,
 * doc/proxy-protocol.txt, 2.2), independently of the gateway's parser: what HAProxy's
 * `send-proxy-v2` writes, and variants it never writes.
 */
import { isIPv4 } from 'node:net';

export const SIGNATURE = Buffer.from('\r\n\r\n\0\r\nQUIT\n', 'latin1');

export interface HeaderFields {
  source: string;
  sourcePort: number;
  destination?: string;
  destinationPort?: number;
  /** 0x1 PROXY (default), 0x0 LOCAL. */
  command?: number;
  /** 0x1 STREAM (default), 0x2 DGRAM. */
  transport?: number;
  /** Type-length-value records after the addresses. */
  tlvs?: Array<{ type: number; value: Buffer }>;
  /** Overrides the length field. */
  length?: number;
  version?: number;
}

function ipv6Bytes(address: string): Buffer {
  const [head = '', tail = ''] = address.split('::');
  const part = (s: string) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill(0), ...right] : left;
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(g, i * 2));
  return out;
}

export function proxyV2Header(fields: HeaderFields): Buffer {
  const v4 = isIPv4(fields.source);
  const destination = fields.destination ?? (v4 ? '127.0.0.1' : '::1');
  const addresses = v4
    ? Buffer.concat([Buffer.from(fields.source.split('.').map(Number)), Buffer.from(destination.split('.').map(Number))])
    : Buffer.concat([ipv6Bytes(fields.source), ipv6Bytes(destination)]);
  const ports = Buffer.alloc(4);
  ports.writeUInt16BE(fields.sourcePort, 0);
  ports.writeUInt16BE(fields.destinationPort ?? 4433, 2);
  const tlvs = Buffer.concat(
    (fields.tlvs ?? []).map(({ type, value }) => {
      const head = Buffer.alloc(3);
      head[0] = type;
      head.writeUInt16BE(value.length, 1);
      return Buffer.concat([head, value]);
    }),
  );
  const body = Buffer.concat([addresses, ports, tlvs]);
  const fixed = Buffer.alloc(4);
  fixed[0] = ((fields.version ?? 2) << 4) | (fields.command ?? 1);
  fixed[1] = ((v4 ? 1 : 2) << 4) | (fields.transport ?? 1);
  fixed.writeUInt16BE(fields.length ?? body.length, 2);
  return Buffer.concat([SIGNATURE, fixed, body]);
}
