/**
 * Answers one ATAPI packet command for a read-only drive (see PROTOCOL.md "ATAPI commands"): with
 * data, with the blocks to read, or with a status (good or check condition and its sense). One
 * `Drive` per device (floppy 0xA0, CD-ROM 0xB0) of a session; it keeps the unit attention and the
 * last sense, nothing else.
 */
import {
  capacityData,
  configurationData,
  discInformationData,
  formatCapacitiesData,
  inquiryData,
  mediaEventData,
  modeSenseData,
  noEventData,
  performanceData,
  senseData,
  tocData,
  type MediumGeometry,
  type MediumKind,
} from './scsi-data.js';

export interface Sense {
  key: number;
  asc: number;
  ascq: number;
}

export type CommandAnswer = { kind: 'status'; sense?: Sense } | { kind: 'data'; data: Buffer } | { kind: 'read'; lba: number; blocks: number };

export const SENSE = {
  notPresent: { key: 0x02, asc: 0x3a, ascq: 0 },
  mediumChanged: { key: 0x06, asc: 0x28, ascq: 0 },
  invalidOpcode: { key: 0x05, asc: 0x20, ascq: 0 },
  outOfRange: { key: 0x05, asc: 0x21, ascq: 0 },
  invalidField: { key: 0x05, asc: 0x24, ascq: 0 },
  writeProtected: { key: 0x07, asc: 0x27, ascq: 0 },
} as const satisfies Record<string, Sense>;

const OP = {
  testUnitReady: 0x00,
  requestSense: 0x03,
  formatUnit: 0x04,
  read6: 0x08,
  write6: 0x0a,
  inquiry: 0x12,
  modeSelect6: 0x15,
  modeSense6: 0x1a,
  startStop: 0x1b,
  preventAllow: 0x1e,
  readFormatCapacities: 0x23,
  readCapacity: 0x25,
  read10: 0x28,
  write10: 0x2a,
  seek10: 0x2b,
  writeVerify10: 0x2e,
  verify10: 0x2f,
  synchronizeCache: 0x35,
  readToc: 0x43,
  getConfiguration: 0x46,
  getEventStatus: 0x4a,
  readDiscInformation: 0x51,
  modeSelect10: 0x55,
  modeSense10: 0x5a,
  read12: 0xa8,
  write12: 0xaa,
  getPerformance: 0xac,
  setCdSpeed: 0xbb,
} as const;

const WRITES: ReadonlySet<number> = new Set([OP.write6, OP.write10, OP.write12, OP.writeVerify10, OP.formatUnit]);
const GOOD_ALWAYS: ReadonlySet<number> = new Set([OP.startStop, OP.preventAllow, OP.synchronizeCache, OP.setCdSpeed]);
/** Commands answered even without a medium (they report on the drive, not the medium). */
const WITHOUT_MEDIUM: ReadonlySet<number> = new Set([OP.inquiry, OP.requestSense, OP.getEventStatus]);

const data = (bytes: Buffer, allocation: number): CommandAnswer => ({ kind: 'data', data: bytes.length > allocation ? bytes.subarray(0, allocation) : bytes });

/** One drive of a session: floppy or CD-ROM, with its medium or none. */
export class Drive {
  #unitAttention = true;
  #mediaEvent = true;
  #lastSense: Sense | null = null;

  constructor(
    readonly kind: MediumKind,
    readonly medium: MediumGeometry | null,
  ) {}

  /** After a bus reset the host is told again that the medium may have changed. */
  reset(): void {
    this.#unitAttention = true;
  }

  answer(cdb: Buffer): CommandAnswer {
    const result = this.#answer(cdb);
    if (result.kind === 'status' && result.sense) this.#lastSense = result.sense;
    return result;
  }

  #answer(cdb: Buffer): CommandAnswer {
    const op = cdb[0]!;
    const medium = this.medium;
    if (op === OP.inquiry) return cdb[1]! & 1 || cdb[2] ? { kind: 'status', sense: SENSE.invalidField } : data(inquiryData(this.kind), cdb.readUInt16BE(3));
    if (op === OP.requestSense) {
      const last = this.#lastSense ?? { key: 0, asc: 0, ascq: 0 };
      this.#lastSense = null;
      return data(senseData(last.key, last.asc, last.ascq), cdb[4]!);
    }
    if (op === OP.getEventStatus) return this.#eventStatus(cdb);
    if (!medium) return WITHOUT_MEDIUM.has(op) ? { kind: 'status' } : { kind: 'status', sense: SENSE.notPresent };
    if (op === OP.testUnitReady) {
      if (!this.#unitAttention) return { kind: 'status' };
      this.#unitAttention = false;
      return { kind: 'status', sense: SENSE.mediumChanged };
    }
    if (WRITES.has(op)) return { kind: 'status', sense: SENSE.writeProtected };
    if (GOOD_ALWAYS.has(op)) return { kind: 'status' };
    switch (op) {
      case OP.read6:
        return this.#read(cdb.readUIntBE(1, 3) & 0x1fffff, cdb[4]! || 256);
      case OP.read10:
        return this.#read(cdb.readUInt32BE(2), cdb.readUInt16BE(7));
      case OP.read12:
        return this.#read(cdb.readUInt32BE(2), cdb.readUInt32BE(6));
      case OP.seek10:
        return cdb.readUInt32BE(2) < medium.blocks ? { kind: 'status' } : { kind: 'status', sense: SENSE.outOfRange };
      case OP.verify10:
        return cdb.readUInt32BE(2) + cdb.readUInt16BE(7) <= medium.blocks ? { kind: 'status' } : { kind: 'status', sense: SENSE.outOfRange };
      case OP.readCapacity:
        return data(capacityData(medium), 8);
      case OP.readFormatCapacities:
        return medium.kind === 'floppy' ? data(formatCapacitiesData(medium), cdb.readUInt16BE(7)) : { kind: 'status', sense: SENSE.invalidOpcode };
      case OP.modeSense6:
      case OP.modeSense10: {
        const ten = op === OP.modeSense10;
        const page = modeSenseData(cdb[2]! & 0x3f, medium, ten, cdb[2]! >> 6 === 1);
        if (!page) return { kind: 'status', sense: SENSE.invalidField };
        return data(page, ten ? cdb.readUInt16BE(7) : cdb[4]!);
      }
      case OP.readToc: {
        if (medium.kind !== 'cd') return { kind: 'status', sense: SENSE.invalidOpcode };
        // The format is in byte 2; older hosts put it in the top bits of byte 9.
        const format = cdb[2]! & 0x0f || cdb[9]! >> 6;
        const toc = tocData(medium, format, (cdb[1]! & 0x02) !== 0);
        return toc ? data(toc, cdb.readUInt16BE(7)) : { kind: 'status', sense: SENSE.invalidField };
      }
      case OP.getConfiguration:
        return medium.kind === 'cd' ? data(configurationData(cdb[1]! & 0x03, cdb.readUInt16BE(2)), cdb.readUInt16BE(7)) : { kind: 'status', sense: SENSE.invalidOpcode };
      case OP.readDiscInformation:
        return medium.kind === 'cd' ? data(discInformationData(), cdb.readUInt16BE(7)) : { kind: 'status', sense: SENSE.invalidOpcode };
      case OP.getPerformance:
        return medium.kind === 'cd' ? data(performanceData(), 8) : { kind: 'status', sense: SENSE.invalidOpcode };
      default:
        return { kind: 'status', sense: SENSE.invalidOpcode };
    }
  }

  #read(lba: number, blocks: number): CommandAnswer {
    if (lba + blocks > this.medium!.blocks) return { kind: 'status', sense: SENSE.outOfRange };
    if (blocks === 0) return { kind: 'status' };
    return { kind: 'read', lba, blocks };
  }

  #eventStatus(cdb: Buffer): CommandAnswer {
    if ((cdb[1]! & 1) === 0) return { kind: 'status', sense: SENSE.invalidField }; // only polled
    const allocation = cdb.readUInt16BE(7);
    if ((cdb[4]! & 0x10) === 0) return data(noEventData(), allocation);
    const event = this.#mediaEvent && this.medium ? 2 : 0;
    this.#mediaEvent = false;
    return data(mediaEventData(this.medium !== null, event), allocation);
  }
}
