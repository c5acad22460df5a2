import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseProxyV2Header } from '../../../plugins/cira/server/proxy-v2-header.js';
import { proxyV2Header, SIGNATURE } from './proxy-v2-encode.js';

const MAX = 1024;

describe('PROXY v2 header parser', () => {
  it('reads the source address and port of TCP over IPv4, and how many bytes the header took', () => {
    const header = proxyV2Header({ source: '127.66.1.9', sourcePort: 51234 });
    const verdict = parseProxyV2Header(Buffer.concat([header, Buffer.from('APF')]), MAX);
    assert.deepEqual(verdict, { kind: 'accepted', value: { address: '127.66.1.9', port: 51234 }, consumed: header.length });
  });

  it('reads IPv6 sources compressed as Node names them, IPv4-mapped ones as ::ffff:a.b.c.d', () => {
    const cases: Array<[string, string]> = [
      ['::1', '::1'],
      ['fd00:0:0:0:0:0:0:7', 'fd00::7'],
      ['2001:db8:0:1:0:0:0:ab', '2001:db8:0:1::ab'],
      ['::ffff:7f00:5', '::ffff:127.0.0.5'],
    ];
    for (const [source, expected] of cases) {
      const verdict = parseProxyV2Header(proxyV2Header({ source, sourcePort: 4000 }), MAX);
      assert.deepEqual(verdict.kind === 'accepted' && verdict.value, { address: expected, port: 4000 }, source);
    }
  });

  it('skips the TLVs HAProxy may add after the addresses', () => {
    const header = proxyV2Header({ source: '127.66.1.10', sourcePort: 1, tlvs: [{ type: 0x20, value: Buffer.from([1, 0, 0, 0, 0]) }, { type: 0x05, value: Buffer.from('unique-id') }] });
    const verdict = parseProxyV2Header(Buffer.concat([header, Buffer.from([0x01])]), MAX);
    assert.equal(verdict.kind === 'accepted' && verdict.consumed, header.length);
  });

  it('asks for more bytes while a valid header is incomplete, at every cut', () => {
    const header = proxyV2Header({ source: '127.66.1.11', sourcePort: 2, tlvs: [{ type: 0x05, value: Buffer.alloc(20, 1) }] });
    for (let cut = 0; cut < header.length; cut++) assert.deepEqual(parseProxyV2Header(header.subarray(0, cut), MAX), { kind: 'need-more' }, `cut at ${cut}`);
  });

  it('refuses at the first byte that cannot begin a v2 header, without waiting for the rest', () => {
    for (const start of ['P', 'G', '\x16', '\r\n\r\n\0\r\nQUIX']) {
      const verdict = parseProxyV2Header(Buffer.from(start, 'latin1'), MAX);
      assert.equal(verdict.kind, 'refused', JSON.stringify(start));
    }
    // The text header of PROXY v1 is refused too: only v2 is spoken.
    assert.equal(parseProxyV2Header(Buffer.from('PROXY TCP4 127.0.0.9 127.0.0.1 5000 4433\r\n'), MAX).kind, 'refused');
  });

  it('refuses what carries no device address or is malformed', () => {
    const refusals: Array<[string, Buffer]> = [
      ['LOCAL command (a health check)', proxyV2Header({ source: '127.66.1.12', sourcePort: 3, command: 0 })],
      ['command 2', proxyV2Header({ source: '127.66.1.12', sourcePort: 3, command: 2 })],
      ['version 1 in the binary form', proxyV2Header({ source: '127.66.1.12', sourcePort: 3, version: 1 })],
      ['UDP', proxyV2Header({ source: '127.66.1.12', sourcePort: 3, transport: 2 })],
      ['length shorter than the IPv4 addresses', proxyV2Header({ source: '127.66.1.12', sourcePort: 3, length: 11 })],
      ['a header longer than allowed', proxyV2Header({ source: '127.66.1.12', sourcePort: 3, tlvs: [{ type: 0x05, value: Buffer.alloc(MAX) }] })],
      ['a unix-socket source', Buffer.concat([SIGNATURE, Buffer.from([0x21, 0x31, 0x00, 216]), Buffer.alloc(216)])],
      ['an unspecified family', Buffer.concat([SIGNATURE, Buffer.from([0x21, 0x00, 0x00, 0x00])])],
    ];
    for (const [what, bytes] of refusals) assert.equal(parseProxyV2Header(bytes, MAX).kind, 'refused', what);
  });

  it('refuses a declared length beyond the limit before the bytes arrive', () => {
    const head = Buffer.concat([SIGNATURE, Buffer.from([0x21, 0x11, 0xff, 0xff])]);
    assert.equal(parseProxyV2Header(head, MAX).kind, 'refused');
  });
});
