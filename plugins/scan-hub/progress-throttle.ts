import type { ScanProgressEvent } from 'amt-gateway/rest-api';

interface ScanState {
  lastAt: number;
  lastPercent: number;
  pending: ScanProgressEvent | undefined;
  timer: NodeJS.Timeout | undefined;
}

/** Scans remembered at most; beyond this, idle entries of scans that never ended are forgotten. */
const MAX_TRACKED_SCANS = 10_000;

/**
 * Holds ScanProgress to at most one per scan per interval, whatever rate the publisher uses
 * (CONTRACT section 7): the latest progress wins, one at 100 % goes out at once, and a completed
 * scan always shows one at 100 %, filled in here if its publisher did not send it.
 */
export class ProgressThrottle {
  private readonly scans = new Map<string, ScanState>();

  constructor(
    private readonly intervalMs: number,
    private readonly emit: (progress: ScanProgressEvent) => void,
  ) {}

  push(progress: ScanProgressEvent): void {
    if (this.intervalMs === 0) return this.emit(progress);
    const now = performance.now();
    let state = this.scans.get(progress.scanId);
    if (!state) {
      if (this.scans.size >= MAX_TRACKED_SCANS) this.forgetIdle();
      state = { lastAt: -Infinity, lastPercent: -1, pending: undefined, timer: undefined };
      this.scans.set(progress.scanId, state);
    }
    if (progress.percent >= 100 || (state.timer === undefined && now - state.lastAt >= this.intervalMs)) {
      this.cancel(state);
      state.lastAt = now;
      state.lastPercent = progress.percent;
      return this.emit(progress);
    }
    state.pending = progress;
    if (state.timer === undefined) {
      state.timer = setTimeout(() => this.release(state), this.intervalMs - (now - state.lastAt));
      state.timer.unref();
    }
  }

  /**
   * The scan has ended: what is held goes out now (before the final event), and the scan is
   * forgotten. For a completed scan, `complete` goes out too unless 100 % already did.
   */
  end(scanId: string, complete?: ScanProgressEvent): void {
    const state = this.scans.get(scanId);
    this.scans.delete(scanId);
    if (state?.pending) this.release(state);
    if (complete && (state?.lastPercent ?? -1) < 100) this.emit(complete);
  }

  /** Drops everything held and stops every timer. */
  close(): void {
    for (const state of this.scans.values()) this.cancel(state);
    this.scans.clear();
  }

  private release(state: ScanState): void {
    const progress = state.pending;
    this.cancel(state);
    state.lastAt = performance.now();
    if (!progress) return;
    state.lastPercent = progress.percent;
    this.emit(progress);
  }

  private cancel(state: ScanState): void {
    if (state.timer !== undefined) clearTimeout(state.timer);
    state.timer = undefined;
    state.pending = undefined;
  }

  private forgetIdle(): void {
    for (const [scanId, state] of this.scans) if (state.timer === undefined) this.scans.delete(scanId);
  }
}
