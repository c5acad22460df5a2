/**
 * The data answers of the ATAPI commands the IDE-R server serves (INQUIRY, MODE SENSE pages, READ
 * TOC, GET CONFIGURATION, ...), built from ATAPI/MMC, SPC and SFF-8070i. Big-endian fields.
 */

export type MediumKind = 'cd' | 'floppy';

/** A medium as the drive presents it. */
export interface MediumGeometry {
  kind: MediumKind;
  blockSize: number;
  /** Blocks on the medium (the last one zero-padded when the image is not a whole number of blocks). */
  blocks: number;
}

export const BLOCK_SIZE: Record<MediumKind, number> = { cd: 2048, floppy: 512 };

export function geometryOf(kind: MediumKind, sizeBytes: number): MediumGeometry {
  const blockSize = BLOCK_SIZE[kind];
  return { kind, blockSize, blocks: Math.ceil(sizeBytes / blockSize) };
}

function ascii(text: string, length: number): Buffer {
  return Buffer.from(text.padEnd(length, ' ').slice(0, length), 'latin1');
}

/** Standard INQUIRY data (36 bytes): CD/DVD (0x05) or direct access (0x00), removable. */
export function inquiryData(kind: MediumKind): Buffer {
  const d = Buffer.alloc(36);
  d[0] = kind === 'cd' ? 0x05 : 0x00;
  d[1] = 0x80; // RMB: removable medium
  d[3] = 0x02; // response data format 2
  d[4] = 31; // additional length
  ascii('AMTGW', 8).copy(d, 8);
  ascii(kind === 'cd' ? 'Virtual CD-ROM' : 'Virtual Floppy', 16).copy(d, 16);
  ascii('1.00', 4).copy(d, 32);
  return d;
}

/** Fixed-format sense data (18 bytes). */
export function senseData(key: number, asc: number, ascq: number): Buffer {
  const d = Buffer.alloc(18);
  d[0] = 0x70;
  d[2] = key;
  d[7] = 10;
  d[12] = asc;
  d[13] = ascq;
  return d;
}

/** Floppy geometry (heads, sectors per track, cylinders) for the mode page 0x05. */
function floppyGeometry(blocks: number): { heads: number; sectors: number; cylinders: number } {
  const known: Record<number, [number, number]> = { 720: [2, 9], 1440: [2, 9], 2400: [2, 15], 2880: [2, 18], 5760: [2, 36] };
  const [heads, sectors] = known[blocks] ?? [8, 32];
  return { heads, sectors, cylinders: Math.min(0xffff, Math.ceil(blocks / (heads * sectors))) };
}

/** Mode pages by code, current values. */
function modePage(code: number, medium: MediumGeometry): Buffer | null {
  switch (code) {
    case 0x01: {
      const p = Buffer.alloc(12); // read-write error recovery
      p[0] = 0x01;
      p[1] = 10;
      p[3] = 1; // read retry count
      return p;
    }
    case 0x05: {
      if (medium.kind !== 'floppy') return null;
      const p = Buffer.alloc(32); // flexible disk page
      const g = floppyGeometry(medium.blocks);
      p[0] = 0x05;
      p[1] = 30;
      p.writeUInt16BE(500, 2); // transfer rate, kbit/s
      p[4] = g.heads;
      p[5] = g.sectors;
      p.writeUInt16BE(512, 6);
      p.writeUInt16BE(g.cylinders, 8);
      p.writeUInt16BE(300, 28); // rotation rate, rpm
      return p;
    }
    case 0x1a: {
      const p = Buffer.alloc(12); // power condition
      p[0] = 0x1a;
      p[1] = 10;
      return p;
    }
    case 0x1d: {
      const p = Buffer.alloc(12); // timeout and protect
      p[0] = 0x1d;
      p[1] = 10;
      return p;
    }
    case 0x2a: {
      if (medium.kind !== 'cd') return null;
      const p = Buffer.alloc(26); // CD capabilities and mechanical status
      p[0] = 0x2a;
      p[1] = 24;
      p[6] = 0x29; // lock, eject, tray loading mechanism
      p.writeUInt16BE(7056, 8); // maximum read speed, kB/s
      p.writeUInt16BE(512, 12); // buffer size, KiB
      p.writeUInt16BE(7056, 14); // current read speed
      return p;
    }
    default:
      return null;
  }
}

const ALL_PAGES = [0x01, 0x05, 0x1a, 0x1d, 0x2a];

/**
 * MODE SENSE data: header (write protected) and the page asked (0x3F: every page); null for a page
 * this drive does not have. `changeable` (PC 01) answers the pages with nothing changeable (zeros).
 */
export function modeSenseData(page: number, medium: MediumGeometry, ten: boolean, changeable: boolean): Buffer | null {
  const pages = (page === 0x3f ? ALL_PAGES : [page]).map((code) => modePage(code, medium)).filter((p): p is Buffer => p !== null);
  if (pages.length === 0) return null;
  if (changeable) for (const p of pages) p.fill(0, 2);
  const body = Buffer.concat(pages);
  const mediumType = medium.kind === 'cd' ? 0x01 : 0x1e; // 120 mm data CD; formatted floppy
  if (ten) {
    const h = Buffer.alloc(8);
    h.writeUInt16BE(6 + body.length, 0);
    h[2] = mediumType;
    h[3] = 0x80; // write protected
    return Buffer.concat([h, body]);
  }
  const h = Buffer.from([Math.min(255, 3 + body.length), mediumType, 0x80, 0]);
  return Buffer.concat([h, body]);
}

/** READ CAPACITY data: last LBA and block length. */
export function capacityData(medium: MediumGeometry): Buffer {
  const d = Buffer.alloc(8);
  d.writeUInt32BE(Math.max(0, medium.blocks - 1), 0);
  d.writeUInt32BE(medium.blockSize, 4);
  return d;
}

/** READ FORMAT CAPACITIES data: one current/maximum descriptor, formatted media. */
export function formatCapacitiesData(medium: MediumGeometry): Buffer {
  const d = Buffer.alloc(12);
  d[3] = 8;
  d.writeUInt32BE(medium.blocks, 4);
  d[8] = 0x02;
  d.writeUIntBE(medium.blockSize, 9, 3);
  return d;
}

function msf(lba: number): [number, number, number] {
  const frames = lba + 150;
  return [Math.floor(frames / (75 * 60)), Math.floor(frames / 75) % 60, frames % 75];
}

/** READ TOC: format 0 (track 1 and the lead-out) or 1 (session info); null for another format. */
export function tocData(medium: MediumGeometry, format: number, useMsf: boolean): Buffer | null {
  const address = (lba: number) => {
    const a = Buffer.alloc(4);
    if (useMsf) Buffer.from([0, ...msf(lba)]).copy(a);
    else a.writeUInt32BE(lba);
    return a;
  };
  const descriptor = (track: number, lba: number) => Buffer.concat([Buffer.from([0, 0x14, track, 0]), address(lba)]);
  if (format === 0) {
    const body = Buffer.concat([descriptor(1, 0), descriptor(0xaa, medium.blocks)]);
    const h = Buffer.from([0, 0, 1, 1]);
    h.writeUInt16BE(2 + body.length, 0);
    return Buffer.concat([h, body]);
  }
  if (format === 1) return Buffer.concat([Buffer.from([0, 10, 1, 1]), descriptor(1, 0)]);
  return null;
}

const FEATURES: Array<[number, Buffer]> = [
  [0x0000, Buffer.from([0x00, 0x00, 0x03, 0x04, 0x00, 0x08, 0x01, 0x00])], // profile list: CD-ROM, current
  [0x0001, Buffer.from([0x00, 0x01, 0x03, 0x04, 0x00, 0x00, 0x00, 0x02])], // core: ATAPI
  [0x0002, Buffer.from([0x00, 0x02, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00])], // morphing
  [0x0003, Buffer.from([0x00, 0x03, 0x03, 0x04, 0x29, 0x00, 0x00, 0x00])], // removable medium: tray, eject, lock
  [0x0010, Buffer.from([0x00, 0x10, 0x01, 0x08, 0x00, 0x00, 0x08, 0x00, 0x00, 0x01, 0x00, 0x00])], // random readable, 2048
  [0x001e, Buffer.from([0x00, 0x1e, 0x03, 0x00])], // CD read
  [0x0100, Buffer.from([0x01, 0x00, 0x03, 0x00])], // power management
  [0x0105, Buffer.from([0x01, 0x05, 0x03, 0x00])], // timeout
];

/** GET CONFIGURATION: RT 0 (all from `start`), 1 (current from `start`), 2 (only `start`). */
export function configurationData(rt: number, start: number): Buffer {
  const chosen = FEATURES.filter(([code]) => (rt === 2 ? code === start : code >= start)).map(([, bytes]) => bytes);
  const header = Buffer.alloc(8);
  const body = Buffer.concat(chosen);
  header.writeUInt32BE(4 + body.length, 0);
  header.writeUInt16BE(0x0008, 6); // current profile: CD-ROM
  return Buffer.concat([header, body]);
}

/** GET EVENT STATUS NOTIFICATION for the media class: `event` 2 new media, 0 no change. */
export function mediaEventData(present: boolean, event: number): Buffer {
  return Buffer.from([0, 6, 0x04, 0x10, event, present ? 0x02 : 0x00, 0, 0]);
}

/** GET EVENT STATUS NOTIFICATION when no class asked is supported: no event available. */
export function noEventData(): Buffer {
  return Buffer.from([0, 2, 0x80, 0x10]);
}

/** READ DISC INFORMATION: a complete disc with one session and one track. */
export function discInformationData(): Buffer {
  const d = Buffer.alloc(34);
  d.writeUInt16BE(32, 0);
  d[2] = 0x0e; // last session complete, disc complete
  d[3] = 1; // first track
  d[4] = 1; // sessions (lsb)
  d[5] = 1; // first track in last session
  d[6] = 1; // last track in last session
  d[7] = 0x20; // unrestricted use
  d.fill(0xff, 16, 24); // last session lead-in / last possible lead-out: none
  return d;
}

/** GET PERFORMANCE: a header with no descriptors. */
export function performanceData(): Buffer {
  const d = Buffer.alloc(8);
  d.writeUInt32BE(4, 0);
  return d;
}
