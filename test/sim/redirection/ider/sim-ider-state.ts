/**
 * A simulated device's IDE-R host side: the session open now (if any), how its host behaves (round
 * trip, installer), and the findings of every boot it ran. A reset with the IDE-R boot armed boots
 * from the session's drive; tests read `findings` or wait with `nextFindings()`.
 */
import type { IderLink } from './sim-ider-link.js';
import { SimHost, type BootFindings, type HostOptions } from './sim-bios.js';

export type IderDrive = 'cd' | 'floppy';

export class SimIderState {
  link: IderLink | null = null;
  /** Sessions the device accepted (after sign-in). */
  sessions = 0;
  readonly host: HostOptions = { roundTripMs: 0, installer: true, installerBlocks: 32, installerBytes: null, dma: false };
  readonly findings: BootFindings[] = [];
  #waiters: Array<(findings: BootFindings) => void> = [];
  #running: Promise<BootFindings> | null = null;

  /**
   * Boots the host from `drive` over the open session, as a reset with IDE-R armed does. Without a
   * session whose drives are attached, the boot fails at once (the BIOS finds no such drive).
   */
  boot(drive: IderDrive): Promise<BootFindings> {
    const link = this.link;
    if (!link || link.closed || link.attached === null) {
      return Promise.resolve(this.#record({ drive, startedAt: Date.now(), booted: false, error: 'no IDE-R session with attached drives', opcodes: [], capacity: null, volume: null, bootEntry: null, bootImageSha256: null, writeSense: null, installer: null, largestPiece: 0 }));
    }
    const host = new SimHost(link, { ...this.host }, drive);
    this.#running = host.run().then((findings) => this.#record(findings));
    return this.#running;
  }

  /** Resolves with the findings of the next boot that ends. */
  nextFindings(): Promise<BootFindings> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  get running(): boolean {
    return this.#running !== null;
  }

  #record(findings: BootFindings): BootFindings {
    this.#running = null;
    this.findings.push(findings);
    if (this.findings.length > 64) this.findings.shift();
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter(findings);
    return findings;
  }
}
