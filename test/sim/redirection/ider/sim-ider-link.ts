/**
 * The device side of an IDE-R session (the AMT firmware between the host's IDE bus and the
 * console): answers OPEN_SESSION and the feature set-up, keeps heartbeats, and carries the host's
 * ATAPI packet commands to the console as COMMAND_WRITTEN, collecting the DATA_TO_HOST pieces and
 * the COMMAND_END_RESPONSE that answer them. Written from PROTOCOL notes of MeshCommander, amtider
 * and the ATA/ATAPI register definitions, independently of the gateway's server.
 */
import type { Duplex } from 'node:stream';
import type { ByteReader } from '../byte-reader.js';

export const MSG = {
  open: 0x40, openReply: 0x41, close: 0x42, closeReply: 0x43, ping: 0x44, pong: 0x45, resetOccurred: 0x46, resetResponse: 0x47,
  features: 0x48, featuresReply: 0x49, heartbeat: 0x4b, commandWritten: 0x50, commandEnd: 0x51, getData: 0x52, dataToHost: 0x54,
} as const;

/** The device's read buffer: the most data it takes in one DATA_TO_HOST. */
export const READ_BUFFER = 8192;
/** What the console's register value in a set-register-state message asks for. */
export type AttachWhen = 'reboot' | 'graceful' | 'now';

/** The outcome of one packet command as the host sees it. */
export interface PacketResult {
  data: Buffer;
  /** Status register ERR bit set (check condition). */
  error: boolean;
  sense: { key: number; asc: number; ascq: number };
  /** Sizes of the DATA_TO_HOST pieces that carried the data. */
  pieces: number[];
}

/** What went wrong on the wire (a finding, readable by tests). */
export interface LinkViolation {
  what: string;
}

/** A host gives up on a command the console leaves unanswered this long (a BIOS times out too). */
const COMMAND_TIMEOUT_MS = 30_000;

interface Waiter {
  timer: NodeJS.Timeout;
  resolve(result: PacketResult): void;
  reject(error: Error): void;
  chunks: Buffer[];
  pieces: number[];
}

export class IderLink {
  #seq = 0;
  #waiter: Waiter | null = null;
  #closed = false;
  #onClose = new Set<() => void>();
  attached: AttachWhen | null = null;
  heartbeatsReceived = 0;
  readonly violations: LinkViolation[] = [];

  constructor(
    private readonly socket: Duplex,
    readonly rxTimeoutMs: number,
    readonly heartbeatMs: number,
  ) {}

  header(type: number, length: number): Buffer {
    const m = Buffer.alloc(length);
    m[0] = type;
    m.writeUInt32LE(this.#seq++ >>> 0, 4);
    return m;
  }

  send(message: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(message);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The device ends the session (as firmware does when the host's user ends redirection): 0x43, then the connection closes. */
  close(): void {
    this.send(this.header(MSG.closeReply, 8));
    this.socket.end();
  }

  onClose(listener: () => void): void {
    this.#onClose.add(listener);
  }

  closedNow(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#waiter) clearTimeout(this.#waiter.timer);
    this.#waiter?.reject(new Error('the IDE-R session closed'));
    this.#waiter = null;
    for (const listener of this.#onClose) listener();
  }

  /**
   * Sends one ATAPI packet command (`cdb`, padded to 12 bytes) for `drive` (0 floppy, 1 CD-ROM) and
   * waits for its answer. `byteCount` is the byte count register the host programs (PIO limit).
   */
  command(drive: 0 | 1, cdb: number[] | Buffer, dma = false, byteCount = 0xfffe): Promise<PacketResult> {
    if (this.#closed) return Promise.reject(new Error('the IDE-R session closed'));
    if (this.#waiter) return Promise.reject(new Error('one packet command at a time'));
    const m = this.header(MSG.commandWritten, 28);
    m[9] = dma ? 1 : 0;
    m.writeUInt16LE(byteCount, 12);
    m[14] = drive === 1 ? 0xb0 : 0xa0;
    m[15] = 0xa0; // PACKET
    Buffer.from(cdb).copy(m, 16, 0, 12);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiter = null;
        reject(new Error(`the console did not answer command 0x${m[16]!.toString(16)} within ${COMMAND_TIMEOUT_MS} ms`));
      }, COMMAND_TIMEOUT_MS);
      this.#waiter = { timer, resolve, reject, chunks: [], pieces: [] };
      this.send(m);
    });
  }

  /** Reads the console's messages until the session ends. */
  async run(reader: ByteReader): Promise<void> {
    for (;;) {
      const head = await reader.read(8);
      const type = head[0]!;
      if (type === MSG.heartbeat) {
        this.heartbeatsReceived++;
        continue;
      }
      if (type === MSG.ping) {
        this.send(this.header(MSG.pong, 8));
        continue;
      }
      if (type === MSG.pong || type === MSG.resetResponse) continue;
      if (type === MSG.close) {
        this.send(this.header(MSG.closeReply, 8));
        return;
      }
      if (type === MSG.features) {
        const body = await reader.read(5);
        const value = body.readUInt32LE(1);
        const reply = this.header(MSG.featuresReply, 13);
        reply[8] = body[0]!;
        if (body[0] === 3) {
          const when = value & 0x18;
          this.attached = value & 1 ? (when === 0x18 ? 'now' : when === 0x10 ? 'graceful' : 'reboot') : null;
          reply.writeUInt32LE(1, 9);
        } else if (body[0] === 2) reply.writeUInt32LE(this.attached ? 2 : 0, 9);
        else reply.writeUInt32LE(1, 9);
        this.send(reply);
        continue;
      }
      if (type === MSG.commandEnd) {
        this.#ended(head, await reader.read(23));
        continue;
      }
      if (type === MSG.dataToHost) {
        const regs = await reader.read(26);
        const length = regs.readUInt16LE(1);
        if (length > READ_BUFFER) this.violations.push({ what: `a DATA_TO_HOST of ${length} bytes exceeds the read buffer (${READ_BUFFER})` });
        const data = await reader.read(length);
        this.#data(head, regs, data);
        continue;
      }
      this.violations.push({ what: `unexpected console message 0x${type.toString(16)}` });
      return;
    }
  }

  #data(head: Buffer, regs: Buffer, data: Buffer): void {
    const waiter = this.#waiter;
    if (!waiter) return void this.violations.push({ what: 'DATA_TO_HOST without a command' });
    // The input registers must show a data phase: DRQ set, interrupt reason I/O.
    if ((regs[11]! & 0x08) === 0 || (regs[6]! & 0x02) === 0) this.violations.push({ what: 'DATA_TO_HOST without DRQ / I/O in its registers' });
    waiter.chunks.push(data);
    waiter.pieces.push(data.length);
    if ((head[3]! & 0x02) === 0) return;
    // The last piece ends the command with the output registers' status.
    const status = regs[19]!;
    this.#finish({ data: Buffer.concat(waiter.chunks), error: (status & 0x01) !== 0, sense: { key: regs[20]!, asc: regs[21]!, ascq: regs[22]! }, pieces: waiter.pieces });
  }

  #ended(_head: Buffer, body: Buffer): void {
    const waiter = this.#waiter;
    if (!waiter) return void this.violations.push({ what: 'COMMAND_END_RESPONSE without a command' });
    const status = body[19]!;
    this.#finish({ data: Buffer.concat(waiter.chunks), error: (status & 0x01) !== 0, sense: { key: body[20]!, asc: body[21]!, ascq: body[22]! }, pieces: waiter.pieces });
  }

  #finish(result: PacketResult): void {
    const waiter = this.#waiter!;
    this.#waiter = null;
    clearTimeout(waiter.timer);
    waiter.resolve(result);
  }
}

/** The device's OPEN_SESSION_REPLY: version 1.0, firmware 11.8, read/write buffers, protocol 0, Intel's IANA number. */
export function openReply(link: IderLink): Buffer {
  const m = link.header(MSG.openReply, 30);
  m[8] = 1;
  m[10] = 11;
  m[11] = 8;
  m.writeUInt16LE(READ_BUFFER, 16);
  m.writeUInt16LE(READ_BUFFER, 18);
  m.writeUInt32LE(343, 25);
  return m;
}
