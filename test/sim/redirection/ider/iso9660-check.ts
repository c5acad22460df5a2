/**
 * What a BIOS checks of a CD before booting it, from ISO 9660 (ECMA-119) and El Torito 1.0: the
 * volume descriptors from sector 16 (primary, boot record, terminator), the boot catalog's
 * validation entry (header 1, key bytes 55 AA, 16-bit words summing to 0) and its initial entry.
 */

export interface VolumeFacts {
  volumeId: string;
  /** Volume space size in logical blocks. */
  blocks: number;
  blockSize: number;
  /** The boot catalog's sector, from the El Torito boot record; null without one. */
  bootCatalogLba: number | null;
}

export interface BootEntry {
  bootable: boolean;
  /** 0 no emulation, 1-3 floppy emulation, 4 hard disk. */
  mediaType: number;
  loadSegment: number;
  /** 512-byte virtual sectors to load. */
  sectorCount: number;
  loadLba: number;
}

const ID = 'CD001';
const EL_TORITO = 'EL TORITO SPECIFICATION';

/** Checks one volume descriptor sector; returns its type. */
export function descriptorType(sector: Buffer): number {
  if (sector.subarray(1, 6).toString('latin1') !== ID || sector[6] !== 1) throw new Error('not an ISO 9660 volume descriptor');
  return sector[0]!;
}

export function readPrimary(sector: Buffer, facts: Partial<VolumeFacts>): void {
  facts.volumeId = sector.subarray(40, 72).toString('latin1').trimEnd();
  facts.blocks = sector.readUInt32LE(80);
  if (sector.readUInt32BE(84) !== facts.blocks) throw new Error('volume space size: its two byte orders differ');
  facts.blockSize = sector.readUInt16LE(128);
  if (facts.blockSize !== 2048) throw new Error(`logical block size ${facts.blockSize}`);
  if (sector[156] !== 34 || (sector[156 + 25]! & 0x02) === 0) throw new Error('no root directory record');
}

export function readBootRecord(sector: Buffer, facts: Partial<VolumeFacts>): void {
  const system = sector.subarray(7, 39).toString('latin1').replace(/\0+$/, '');
  if (system !== EL_TORITO) return;
  facts.bootCatalogLba = sector.readUInt32LE(0x47);
}

/** Checks the validation entry and returns the initial/default entry. */
export function readBootCatalog(sector: Buffer): BootEntry {
  if (sector[0] !== 1) throw new Error('boot catalog: no validation entry');
  if (sector[30] !== 0x55 || sector[31] !== 0xaa) throw new Error('boot catalog: bad key bytes');
  let sum = 0;
  for (let at = 0; at < 32; at += 2) sum = (sum + sector.readUInt16LE(at)) & 0xffff;
  if (sum !== 0) throw new Error('boot catalog: validation checksum');
  const entry = sector.subarray(32, 64);
  return { bootable: entry[0] === 0x88, mediaType: entry[1]! & 0x0f, loadSegment: entry.readUInt16LE(2) || 0x7c0, sectorCount: entry.readUInt16LE(6), loadLba: entry.readUInt32LE(8) };
}
