import type { RmcpPong } from './rmcp-codec.js';
import type { ProbeCandidate } from '../tasks/task-types.js';

/**
 * What a probe batch found per address, and which candidates are complete before the batch ends:
 * their TCP probes done and their pong in, so that a candidate read early carries the same ports and
 * pong as the batch's final list. One that has not answered its ping waits for the batch's end (its
 * pong may still come within the window).
 */
export class ProbeCandidates {
  private readonly open = new Map<string, number[]>();
  private readonly pongs = new Map<string, RmcpPong>();
  private readonly tcpDone = new Set<string>();
  /** Found, TCP probes done, not yet released (each address enters once: its TCP probes end once). */
  private readonly waiting = new Set<string>();

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
    this.pongs.set(address, pong);
    if (this.tcpDone.has(address)) this.waiting.add(address);
  }

  /** Candidates that became complete since the last call. */
  takeComplete(): ProbeCandidate[] {
    const complete: ProbeCandidate[] = [];
    for (const address of this.waiting) {
      if (this.rmcpPort > 0 && !this.pongs.has(address)) continue;
      this.waiting.delete(address);
      complete.push(this.candidate(address));
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
