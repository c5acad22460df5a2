/**
 * Bootable test images written to disk in pieces (a 700 MB image never sits in memory): an ISO 9660
 * CD with an El Torito no-emulation boot image, and a 1.44 MB boot floppy. Every block past the
 * structures carries `BLK:` and its own LBA, so a reader can tell misplaced data; the SHA-256 of the
 * whole file and of the boot image are returned for checks.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

export interface BuiltImage {
  path: string;
  sizeBytes: number;
  sha256: string;
  /** SHA-256 of what the BIOS loads: the El Torito boot image, or the floppy's boot sector. */
  bootSha256: string;
}

const SECTOR = 2048;
const BOOT_SECTORS = 4; // 512-byte virtual sectors of the boot image
const LBA = { primary: 16, bootRecord: 17, terminator: 18, catalog: 19, bootImage: 20, root: 21, pathL: 22, pathM: 23, first: 24 } as const;

function both32(into: Buffer, at: number, value: number): void {
  into.writeUInt32LE(value, at);
  into.writeUInt32BE(value, at + 4);
}

function both16(into: Buffer, at: number, value: number): void {
  into.writeUInt16LE(value, at);
  into.writeUInt16BE(value, at + 2);
}

function dirRecord(lba: number, name: number): Buffer {
  const r = Buffer.alloc(34);
  r[0] = 34;
  both32(r, 2, lba);
  both32(r, 10, SECTOR);
  r[25] = 0x02;
  both16(r, 28, 1);
  r[32] = 1;
  r[33] = name;
  return r;
}

function descriptor(type: number): Buffer {
  const d = Buffer.alloc(SECTOR);
  d[0] = type;
  d.write('CD001', 1, 'latin1');
  d[6] = 1;
  return d;
}

function stamped(lba: number, blockSize: number): Buffer {
  const b = Buffer.alloc(blockSize, (lba * 31) & 0xff);
  b.write('BLK:', 0, 'latin1');
  b.writeUInt32LE(lba, 4);
  return b;
}

/** The sectors before the stamped filler of an ISO of `blocks` blocks. */
function isoHead(blocks: number, volumeId: string): { head: Buffer; boot: Buffer } {
  const head = Buffer.alloc(LBA.first * SECTOR);
  const put = (lba: number, sector: Buffer) => sector.copy(head, lba * SECTOR);
  const pvd = descriptor(1);
  pvd.write('AMTGW-TEST'.padEnd(32, ' '), 8, 'latin1');
  pvd.write(volumeId.padEnd(32, ' ').slice(0, 32), 40, 'latin1');
  both32(pvd, 80, blocks);
  both16(pvd, 120, 1);
  both16(pvd, 124, 1);
  both16(pvd, 128, SECTOR);
  both32(pvd, 132, 10);
  pvd.writeUInt32LE(LBA.pathL, 140);
  pvd.writeUInt32BE(LBA.pathM, 148);
  dirRecord(LBA.root, 0).copy(pvd, 156);
  pvd[881] = 1;
  put(LBA.primary, pvd);
  const bootRecord = descriptor(0);
  bootRecord.write('EL TORITO SPECIFICATION', 7, 'latin1');
  bootRecord.writeUInt32LE(LBA.catalog, 0x47);
  put(LBA.bootRecord, bootRecord);
  put(LBA.terminator, descriptor(255));
  const catalog = Buffer.alloc(SECTOR);
  catalog[0] = 1;
  catalog.write('AMTGW TEST', 4, 'latin1');
  catalog[30] = 0x55;
  catalog[31] = 0xaa;
  let sum = 0;
  for (let at = 0; at < 32; at += 2) sum = (sum + catalog.readUInt16LE(at)) & 0xffff;
  catalog.writeUInt16LE((0x10000 - sum) & 0xffff, 28);
  catalog[32] = 0x88;
  catalog.writeUInt16LE(BOOT_SECTORS, 32 + 6);
  catalog.writeUInt32LE(LBA.bootImage, 32 + 8);
  put(LBA.catalog, catalog);
  const boot = Buffer.alloc(BOOT_SECTORS * 512);
  for (let i = 0; i < boot.length; i++) boot[i] = (i * 7 + 3) & 0xff;
  boot.write('AMTGW SIMULATED BOOT IMAGE', 0, 'latin1');
  put(LBA.bootImage, boot);
  const root = Buffer.alloc(SECTOR);
  dirRecord(LBA.root, 0).copy(root, 0);
  dirRecord(LBA.root, 1).copy(root, 34);
  put(LBA.root, root);
  const path = Buffer.from([1, 0, 0, 0, 0, 0, 0, 0, 1, 0]);
  path.writeUInt32LE(LBA.root, 2);
  put(LBA.pathL, path);
  const pathM = Buffer.from(path);
  pathM.writeUInt32BE(LBA.root, 2);
  pathM.writeUInt16BE(1, 6);
  put(LBA.pathM, pathM);
  return { head, boot };
}

async function writeImage(path: string, head: Buffer, blocks: number, blockSize: number): Promise<string> {
  const file = await open(path, 'w');
  const hash = createHash('sha256');
  try {
    await file.write(head);
    hash.update(head);
    const perWrite = Math.max(1, Math.floor((1 << 20) / blockSize));
    for (let lba = head.length / blockSize; lba < blocks; lba += perWrite) {
      const count = Math.min(perWrite, blocks - lba);
      const chunk = Buffer.concat(Array.from({ length: count }, (_, i) => stamped(lba + i, blockSize)));
      await file.write(chunk);
      hash.update(chunk);
    }
  } finally {
    await file.close();
  }
  return hash.digest('hex');
}

/** A bootable ISO of `sizeBytes` (rounded up to whole 2048-byte sectors, at least 48 KiB). */
export async function writeBootIso(path: string, sizeBytes: number, volumeId = 'AMTGW_BOOT'): Promise<BuiltImage> {
  const blocks = Math.max(LBA.first, Math.ceil(sizeBytes / SECTOR));
  const { head, boot } = isoHead(blocks, volumeId);
  const sha256 = await writeImage(path, head, blocks, SECTOR);
  return { path, sizeBytes: blocks * SECTOR, sha256, bootSha256: createHash('sha256').update(boot).digest('hex') };
}

/** A 1.44 MB floppy whose boot sector ends in 55 AA. */
export async function writeBootFloppy(path: string): Promise<BuiltImage> {
  const sector = Buffer.alloc(512);
  sector.write('AMTGW FLOPPY', 3, 'latin1');
  sector[510] = 0x55;
  sector[511] = 0xaa;
  const sha256 = await writeImage(path, sector, 2880, 512);
  return { path, sizeBytes: 2880 * 512, sha256, bootSha256: createHash('sha256').update(sector).digest('hex') };
}
