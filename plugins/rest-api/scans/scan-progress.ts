/**
 * What a running scan has done and how long it has left. Probing counts probes decided, not only
 * addresses finished: on a silent network an address waits out a timeout per port, and a bar fed by
 * finished addresses alone would stand still for seconds at a time. The time left is the longer of
 * the probing still to do (at the rate probes were decided so far) and the device reads waiting (at
 * the rate devices were read so far).
 */

export interface ScanProgressSnapshot {
  /** Addresses whose every probe is decided. */
  scanned: number;
  probesDecided: number;
  probesTotal: number;
  /** 0-99 while running (100 is the end's). */
  percent: number;
  /** Estimated seconds left, or null before anything was measured. */
  etaSeconds: number | null;
}

interface BatchCount {
  probed: number;
  probesDecided: number;
}

export class ScanProgressTracker {
  private done: BatchCount = { probed: 0, probesDecided: 0 };
  private readonly inFlight = new Map<number, BatchCount>();
  private offered = 0;
  private read = 0;
  private firstOfferAt: number | null = null;

  constructor(
    private readonly total: number,
    private readonly probesTotal: number,
    private readonly started: number = performance.now(),
  ) {}

  batchProgress(index: number, count: BatchCount): void {
    this.inFlight.set(index, count);
  }

  batchDone(index: number, count: BatchCount): void {
    this.inFlight.delete(index);
    this.done = { probed: this.done.probed + count.probed, probesDecided: this.done.probesDecided + count.probesDecided };
  }

  deviceOffered(now: number = performance.now()): void {
    this.offered++;
    this.firstOfferAt ??= now;
  }

  /** A device read ended (recorded, failed or dropped). */
  deviceSettled(): void {
    this.read++;
  }

  snapshot(now: number = performance.now()): ScanProgressSnapshot {
    let scanned = this.done.probed;
    let probesDecided = this.done.probesDecided;
    for (const count of this.inFlight.values()) {
      scanned += count.probed;
      probesDecided += count.probesDecided;
    }
    scanned = Math.min(this.total, scanned);
    probesDecided = Math.min(this.probesTotal, probesDecided);
    const fraction = this.probesTotal > 0 ? probesDecided / this.probesTotal : this.total > 0 ? scanned / this.total : 1;
    return { scanned, probesDecided, probesTotal: this.probesTotal, percent: Math.min(99, Math.floor(fraction * 100)), etaSeconds: this.eta(probesDecided, now) };
  }

  private eta(probesDecided: number, now: number): number | null {
    const elapsed = (now - this.started) / 1000;
    const probesLeft = this.probesTotal - probesDecided;
    let seconds = 0;
    if (probesLeft > 0) {
      if (probesDecided === 0 || elapsed <= 0) return null;
      seconds = probesLeft / (probesDecided / elapsed);
    }
    const readsLeft = this.offered - this.read;
    if (readsLeft > 0 && this.firstOfferAt !== null) {
      const reading = (now - this.firstOfferAt) / 1000;
      if (this.read === 0 || reading <= 0) return probesLeft > 0 ? Math.ceil(seconds) : null;
      seconds = Math.max(seconds, readsLeft / (this.read / reading));
    }
    return Math.ceil(seconds);
  }
}
