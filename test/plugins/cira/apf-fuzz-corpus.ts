/**
 * Seeded material for fuzzing the APF parser and tunnels: a small PRNG (mulberry32, so that a
 * failing run is replayed from its seed), every message a device sends, and mutations of them.
 */
import { encode } from '../../sim/cira-apf.js';

export type Random = () => number;

export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const int = (random: Random, below: number) => Math.floor(random() * below);
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const field = (s: string | Buffer) => {
  const b = typeof s === 'string' ? Buffer.from(s) : s;
  return Buffer.concat([u32(b.length), b]);
};

const UUID = '12345678-9abc-def0-1122-334455667788';

/** Every message a device sends, well formed. */
export const DEVICE_MESSAGES: readonly Buffer[] = [
  encode.protocolVersion(UUID),
  encode.serviceRequest('auth@amt.intel.com'),
  encode.serviceRequest('pfwd@amt.intel.com'),
  encode.userauthPassword('mps-user', 'not-the-password'),
  Buffer.concat([Buffer.of(50), field('mps-user'), field('pfwd@amt.intel.com'), field('none')]),
  encode.tcpipForward(16992),
  Buffer.concat([Buffer.of(80), field('cancel-tcpip-forward'), Buffer.of(1), field(''), u32(16992)]),
  Buffer.concat([Buffer.of(80), field('udp-send-to@amt.intel.com'), Buffer.of(0), field('1.2.3.4'), u32(7), field('5.6.7.8'), u32(8), field(Buffer.alloc(40, 1))]),
  Buffer.concat([Buffer.of(80), field('other@amt.intel.com'), Buffer.of(1)]),
  Buffer.concat([Buffer.of(90), field('direct-tcpip'), u32(7), u32(4096), u32(0xffffffff), field('127.0.0.1'), u32(80), field('127.0.0.1'), u32(1234)]),
  encode.keepAliveRequest(7),
  encode.keepAliveReply(8),
  encode.keepAliveOptionsReply(30, 90),
  encode.channelOpenConfirmation(1, 2, 3),
  encode.channelOpenFailure(1, 2),
  encode.windowAdjust(1, 2),
  encode.channelData(1, Buffer.from('hello')),
  encode.channelClose(1),
];

/** Lengths that sit on or around the bounds a parser must keep. */
const AWKWARD_U32 = [0, 1, 0x7f, 0x80, 0xff, 1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536, 1 << 20, (1 << 20) + 1, 0x7fffffff, 0xffffffff];

/**
 * A message whose length field declares up to 8 KiB or 128 KiB, then up to 12 KB of it: what a peer sends
 * to make a reader hold memory (the type one of those with a length field, or any byte).
 */
function declaredLarge(random: Random): Buffer {
  // Half of them within a bound of a few KiB (so that they are waited for), half far beyond.
  const declared = u32(int(random, random() < 0.5 ? 1 << 13 : 1 << 17));
  const heads = [
    Buffer.concat([Buffer.of(94), u32(1), declared]),
    Buffer.concat([Buffer.of(94), u32(0), declared]),
    Buffer.concat([Buffer.of(5), declared]),
    Buffer.concat([Buffer.of(50), declared]),
    Buffer.concat([Buffer.of(int(random, 256)), declared]),
  ];
  return Buffer.concat([heads[int(random, heads.length)]!, Buffer.alloc(int(random, 12_000), int(random, 256))]);
}

/**
 * One well-formed message with one to three mutations; one time in eight random bytes; a large
 * declared length for a `largeShare` of them.
 */
export function fuzzMessage(random: Random, largeShare = 0.125): Buffer {
  if (random() < largeShare) return declaredLarge(random);
  if (random() < 0.125) {
    const out = Buffer.alloc(int(random, 64));
    for (let i = 0; i < out.length; i++) out[i] = int(random, 256);
    return out;
  }
  let bytes: Buffer = Buffer.from(DEVICE_MESSAGES[int(random, DEVICE_MESSAGES.length)]!);
  for (let n = 1 + int(random, 3); n > 0; n--) bytes = mutate(random, bytes);
  return bytes;
}

function mutate(random: Random, bytes: Buffer): Buffer {
  const at = int(random, Math.max(1, bytes.length));
  switch (int(random, 7)) {
    case 0: {
      const out = Buffer.from(bytes);
      if (out.length) out[at] = int(random, 256);
      return out;
    }
    case 1: {
      // A length field (or any four bytes) set to an awkward value.
      const out = Buffer.from(bytes);
      if (out.length >= 5) out.writeUInt32BE(AWKWARD_U32[int(random, AWKWARD_U32.length)]!, 1 + int(random, out.length - 4));
      return out;
    }
    case 2:
      return bytes.subarray(0, at);
    case 3:
      return Buffer.concat([bytes.subarray(0, at), Buffer.alloc(int(random, 32), int(random, 256)), bytes.subarray(at)]);
    case 4: {
      const out = Buffer.from(bytes);
      if (out.length) out[0] = int(random, 256);
      return out;
    }
    case 5:
      return Buffer.concat([bytes, DEVICE_MESSAGES[int(random, DEVICE_MESSAGES.length)]!]);
    default: {
      // A large declared length, then bytes to fill it: what a peer does to make a reader hold memory.
      const out = Buffer.from(bytes);
      if (out.length >= 5) out.writeUInt32BE(int(random, 1 << 17), 1 + int(random, Math.min(out.length - 4, 12)));
      return Buffer.concat([out, Buffer.alloc(int(random, 12_000), int(random, 256))]);
    }
  }
}

/** `bytes` cut into 1 to 4 pieces at random places (as TLS records would carry them). */
export function splitRandomly(random: Random, bytes: Buffer): Buffer[] {
  const cuts = [...new Set(Array.from({ length: int(random, 4) }, () => int(random, bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  return pieces;
}
