/**
 * The host of a simulated device booting from IDE-R: a BIOS that finds the redirected drive ready,
 * identifies it, reads the CD's volume descriptors, El Torito catalog and boot image (or a floppy's
 * boot sector) and checks them, then an installer that reads the whole medium in large reads and
 * checks what it read. Every command is generated here from the ATAPI / MMC specifications; what
 * it found is kept as findings for tests.
 */
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { descriptorType, readBootCatalog, readBootRecord, readPrimary, type BootEntry, type VolumeFacts } from './iso9660-check.js';
import type { IderLink, PacketResult } from './sim-ider-link.js';

export interface HostOptions {
  /** Added before every command: the round trip of a slower device or network (ms). */
  roundTripMs: number;
  /** Whether the installer reads the whole medium after the boot. */
  installer: boolean;
  /** Blocks per installer read (READ(12) above 0xFFFF). */
  installerBlocks: number;
  /** The installer reads only the first this many bytes (null: the whole medium). */
  installerBytes: number | null;
  /** Transfer mode the host programs. */
  dma: boolean;
}

export interface BootFindings {
  drive: 'cd' | 'floppy';
  startedAt: number;
  booted: boolean;
  /** Why the boot or the install failed. */
  error: string | null;
  opcodes: number[];
  capacity: { blocks: number; blockSize: number } | null;
  volume: VolumeFacts | null;
  bootEntry: BootEntry | null;
  /** SHA-256 of the loaded boot image (CD) or boot sector (floppy). */
  bootImageSha256: string | null;
  /** The sense a write got (a read-only medium answers 07/27/00). */
  writeSense: { key: number; asc: number; ascq: number } | null;
  installer: { bytes: number; sha256: string; elapsedMs: number; mbPerSecond: number; stampErrors: number } | null;
  /** Largest DATA_TO_HOST piece seen. */
  largestPiece: number;
}

const READ_10 = 0x28;
const READ_12 = 0xa8;

const be32 = (v: number) => [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
const be16 = (v: number) => [(v >>> 8) & 0xff, v & 0xff];

/** Builds the CDB of a read of `blocks` at `lba`: READ(10) when the count fits 16 bits, else READ(12). */
export function readCdb(lba: number, blocks: number, twelve = blocks > 0xffff): number[] {
  return twelve ? [READ_12, 0, ...be32(lba), ...be32(blocks), 0, 0] : [READ_10, 0, ...be32(lba), 0, ...be16(blocks), 0, 0, 0];
}

export class SimHost {
  readonly findings: BootFindings;

  constructor(
    private readonly link: IderLink,
    private readonly options: HostOptions,
    drive: 'cd' | 'floppy',
  ) {
    this.findings = { drive, startedAt: Date.now(), booted: false, error: null, opcodes: [], capacity: null, volume: null, bootEntry: null, bootImageSha256: null, writeSense: null, installer: null, largestPiece: 0 };
  }

  get #unit(): 0 | 1 {
    return this.findings.drive === 'cd' ? 1 : 0;
  }

  async #command(cdb: number[]): Promise<PacketResult> {
    if (this.options.roundTripMs > 0) await delay(this.options.roundTripMs);
    this.findings.opcodes.push(cdb[0]!);
    const result = await this.link.command(this.#unit, cdb, this.options.dma);
    for (const piece of result.pieces) if (piece > this.findings.largestPiece) this.findings.largestPiece = piece;
    return result;
  }

  async #read(lba: number, blocks: number, twelve = false): Promise<Buffer> {
    const result = await this.#command(readCdb(lba, blocks, twelve));
    const expected = blocks * this.findings.capacity!.blockSize;
    if (result.error) throw new Error(`read of ${blocks} at ${lba} failed: sense ${senseText(result.sense)}`);
    if (result.data.length !== expected) throw new Error(`read of ${blocks} at ${lba} returned ${result.data.length} bytes, not ${expected}`);
    return result.data;
  }

  /** Runs the boot (and the installer when asked); resolves with the findings, never throws. */
  async run(): Promise<BootFindings> {
    try {
      await this.#ready();
      await this.#identify();
      if (this.findings.drive === 'cd') await this.#bootCd();
      else await this.#bootFloppy();
      this.findings.booted = true;
      await this.#tryWrite();
      if (this.options.installer) await this.#install();
    } catch (error) {
      this.findings.error = error instanceof Error ? error.message : String(error);
    }
    return this.findings;
  }

  /** TEST UNIT READY until ready: a unit attention (medium changed) first is normal. */
  async #ready(): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const result = await this.#command([0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
      if (!result.error) return;
      if (result.sense.key === 0x02 && result.sense.asc === 0x3a) throw new Error('no medium in the redirected drive');
      if (result.sense.key !== 0x06) throw new Error(`TEST UNIT READY: sense ${senseText(result.sense)}`);
      // REQUEST SENSE clears what the unit attention left, as a BIOS does.
      await this.#command([0x03, 0, 0, 0, 18, 0, 0, 0, 0, 0, 0, 0]);
    }
    throw new Error('the drive never became ready');
  }

  async #identify(): Promise<void> {
    const inquiry = await this.#command([0x12, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0]);
    if (inquiry.error || inquiry.data.length < 36) throw new Error('INQUIRY failed');
    const type = inquiry.data[0]! & 0x1f;
    if (type !== (this.findings.drive === 'cd' ? 0x05 : 0x00)) throw new Error(`INQUIRY: device type ${type}`);
    const capacity = await this.#command([0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    if (capacity.error || capacity.data.length !== 8) throw new Error('READ CAPACITY failed');
    this.findings.capacity = { blocks: capacity.data.readUInt32BE(0) + 1, blockSize: capacity.data.readUInt32BE(4) };
    const wanted = this.findings.drive === 'cd' ? 2048 : 512;
    if (this.findings.capacity.blockSize !== wanted) throw new Error(`block size ${this.findings.capacity.blockSize}`);
    const sense = await this.#command([0x5a, 0, 0x3f, 0, 0, 0, 0, 0x0f, 0xff, 0, 0, 0]);
    if (sense.error || sense.data.length < 8) throw new Error('MODE SENSE(10) failed');
    if ((sense.data[3]! & 0x80) === 0) throw new Error('MODE SENSE: the medium is not write protected');
  }

  async #bootCd(): Promise<void> {
    const facts: Partial<VolumeFacts> = { bootCatalogLba: null };
    let sawPrimary = false;
    for (let lba = 16; lba < 16 + 32; lba++) {
      const sector = await this.#read(lba, 1);
      const type = descriptorType(sector);
      if (type === 255) break;
      if (type === 1) {
        readPrimary(sector, facts);
        sawPrimary = true;
      } else if (type === 0) readBootRecord(sector, facts);
    }
    if (!sawPrimary) throw new Error('no primary volume descriptor');
    this.findings.volume = facts as VolumeFacts;
    if (facts.blocks! > this.findings.capacity!.blocks) throw new Error('the volume is larger than the medium');
    if (facts.bootCatalogLba === null || facts.bootCatalogLba === undefined) throw new Error('no El Torito boot record');
    // The catalog sector with READ(12), as firmware that prefers it does.
    const entry = readBootCatalog(await this.#read(facts.bootCatalogLba, 1, true));
    this.findings.bootEntry = entry;
    if (!entry.bootable) throw new Error('the initial boot entry is not bootable');
    const blocks = Math.ceil((entry.sectorCount * 512) / 2048);
    const image = (await this.#read(entry.loadLba, blocks)).subarray(0, entry.sectorCount * 512);
    this.findings.bootImageSha256 = createHash('sha256').update(image).digest('hex');
  }

  async #bootFloppy(): Promise<void> {
    const sector = await this.#read(0, 1);
    if (sector[510] !== 0x55 || sector[511] !== 0xaa) throw new Error('no boot signature in the floppy boot sector');
    this.findings.bootImageSha256 = createHash('sha256').update(sector).digest('hex');
  }

  async #tryWrite(): Promise<void> {
    const write = await this.#command([0x2a, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]);
    this.findings.writeSense = write.error ? write.sense : { key: 0, asc: 0, ascq: 0 };
  }

  /** Reads every block in order, hashing it and checking the block stamps the test images carry. */
  async #install(): Promise<void> {
    const { blockSize } = this.findings.capacity!;
    const limit = this.options.installerBytes;
    const blocks = limit === null ? this.findings.capacity!.blocks : Math.min(this.findings.capacity!.blocks, Math.ceil(limit / blockSize));
    const hash = createHash('sha256');
    const started = performance.now();
    let stampErrors = 0;
    for (let lba = 0; lba < blocks; lba += this.options.installerBlocks) {
      const count = Math.min(this.options.installerBlocks, blocks - lba);
      const data = await this.#read(lba, count);
      hash.update(data);
      for (let i = 0; i < count; i++) {
        const block = data.subarray(i * blockSize, (i + 1) * blockSize);
        if (block.toString('latin1', 0, 4) === 'BLK:' && block.readUInt32LE(4) !== lba + i) stampErrors++;
      }
    }
    const elapsedMs = performance.now() - started;
    const bytes = blocks * blockSize;
    this.findings.installer = { bytes, sha256: hash.digest('hex'), elapsedMs, mbPerSecond: bytes / 1e6 / (elapsedMs / 1000), stampErrors };
  }
}

export function senseText(sense: { key: number; asc: number; ascq: number }): string {
  const hex = (v: number) => v.toString(16).padStart(2, '0');
  return `${hex(sense.key)}/${hex(sense.asc)}/${hex(sense.ascq)}`;
}
