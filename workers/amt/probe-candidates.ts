import type { RmcpPong } from './rmcp-codec.js';
import type { ProbeCandidate } from '../tasks/task-types.js';

/**
 * What a probe batch found per address, and which candidates are complete before the batch ends.
 * A candidate is complete once its TCP probes are done (no probe of ours is open at the address any
 * more, so a read may connect): with its pong if that came, else marked `pongPending`, since a pong
 * may still come until the batch's collection window closes (the batch's final list has the last
 * word; a pong that comes later releases the candidate once more, now with it). Reads thus start as
 * soon as a device's ports answered, not after the window. An address found by RMCP alone waits for
 * its TCP probes.
 */
export class ProbeCandidates {
  private readonly open = new Map<string, number[]>();
  private readonly pongs = new Map<string, RmcpPong>();
  private readonly tcpDone = new Set<string>();
  /** Found, TCP probes done, not yet released (or released without the pong that came since). */
  private readonly waiting = new Set<string>();
  /** Released before their pong came. */
  private readonly releasedWithoutPong = new Set<string>();

  /** `rmcpPort` 0: no pings, a candidate is complete once its TCP probes are. */
  constructor(private readonly rmcpPort: number) {}

  /** Addresses with an open port or a pong. */
  get found(): number {
    let n = this.pongs.size;
    for (const address of this.open.keys()) if (!this.pongs.has(address)) n++;
    return n;
  }

  tcpFinished(address: string, openPorts: number[]): void {
    this.tcpDone.add(address);
    if (openPorts.length > 0) this.open.set(address, openPorts);
    if (openPorts.length > 0 || this.pongs.has(address)) this.waiting.add(address);
  }

  ponged(address: string, pong: RmcpPong): void {
    if (this.pongs.has(address)) return;
    this.pongs.set(address, pong);
    if (this.tcpDone.has(address) && (this.releasedWithoutPong.delete(address) || !this.open.has(address))) this.waiting.add(address);
  }

  /**
   * Candidates that became complete since the last call, and those released before with
   * `pongPending` whose pong came since (again, now with it).
   */
  takeComplete(): ProbeCandidate[] {
    const complete: ProbeCandidate[] = [];
    for (const address of this.waiting) {
      this.waiting.delete(address);
      const candidate = this.candidate(address);
      if (this.rmcpPort > 0 && !candidate.pong) {
        candidate.pongPending = true;
        this.releasedWithoutPong.add(address);
      }
      complete.push(candidate);
    }
    return complete;
  }

  /** Every candidate among `addresses`, in their order. */
  all(addresses: readonly string[]): ProbeCandidate[] {
    const candidates: ProbeCandidate[] = [];
    for (const address of addresses) if (this.open.has(address) || this.pongs.has(address)) candidates.push(this.candidate(address));
    return candidates;
  }

  private candidate(address: string): ProbeCandidate {
    const ports = [...(this.open.get(address) ?? [])];
    const pong = this.pongs.get(address) ?? null;
    if (pong && this.rmcpPort > 0) ports.push(this.rmcpPort);
    return { address, openPorts: [...new Set(ports)].sort((a, b) => a - b), pong };
  }
}
