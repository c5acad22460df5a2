/** Deterministic identities for simulated devices: the same seed and index always give the same device. */
import { createHash } from 'node:crypto';

/** A small deterministic byte source (SHA-256 in counter mode) for one device. */
export class SeededBytes {
  #counter = 0;
  #pool = Buffer.alloc(0);
  constructor(private readonly seed: string) {}

  bytes(n: number): Buffer {
    while (this.#pool.length < n) {
      const block = createHash('sha256').update(`${this.seed}:${this.#counter++}`).digest();
      this.#pool = Buffer.concat([this.#pool, block]);
    }
    const out = this.#pool.subarray(0, n);
    this.#pool = this.#pool.subarray(n);
    return Buffer.from(out);
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return this.bytes(4).readUInt32BE(0) % n;
  }

  pick<T>(values: readonly T[]): T {
    return values[this.int(values.length)]!;
  }
}

export const FIRMWARE_VERSIONS = ['11.8.94.3811', '12.0.67.1579', '15.0.23.1706', '16.1.27.2225', '18.0.5.2066'] as const;

export interface DeviceIdentity {
  hostname: string;
  uuid: string;
  /** major.minor.hotfix.build, as the Server header gives it. */
  firmwareVersion: string;
  realm: string;
  serial: string;
}

/** A canonical (v4-shaped) UUID from 16 bytes. */
function uuidFrom(bytes: Buffer): string {
  const b = Buffer.from(bytes);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Derives a device's identity from the fleet seed and its index. */
export function deviceIdentity(seed: string | number, index: number, hostnamePrefix: string, firmwareVersions: readonly string[]): DeviceIdentity {
  const rnd = new SeededBytes(`${seed}/${index}`);
  const uuid = uuidFrom(rnd.bytes(16));
  const realmHex = rnd.bytes(16).toString('hex').toUpperCase();
  // Some real realms end in zeros; keep a few like that so parsers meet them.
  const realm = `Digest:${index % 5 === 4 ? `${realmHex.slice(0, 24)}00000000` : realmHex}`;
  return {
    hostname: `${hostnamePrefix}-${String(index + 1).padStart(4, '0')}`,
    uuid,
    firmwareVersion: rnd.pick(firmwareVersions),
    realm,
    serial: rnd.bytes(6).toString('hex').toUpperCase(),
  };
}

/** `PlatformGUID` as AMT reports it: the UUID's 16 bytes in SMBIOS order (first three fields little-endian), upper-case hex. */
export function platformGuidOf(uuid: string): string {
  const hex = uuid.replace(/-/g, '');
  const swap = (s: string): string => s.match(/../g)!.reverse().join('');
  return (swap(hex.slice(0, 8)) + swap(hex.slice(8, 12)) + swap(hex.slice(12, 16)) + hex.slice(16)).toUpperCase();
}
