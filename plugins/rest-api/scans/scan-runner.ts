import type { CancelToken, EventBus, Logger, WorkerPool } from '../../../core/plugin-api.js';
import type { DeviceGate, ProbedAddress } from 'amt-gateway/devices';
import { createSemaphore } from '../../../core/util/semaphore.js';
import type { ProbeCandidate } from '../../../workers/tasks/task-types.js';
import { createRttState } from '../../../workers/amt/rtt-estimator.js';
import type { Scan, ScanProgressEvent } from '../api.js';
import type { RestApiConfig } from '../config.js';
import { createProgressThrottle } from './progress-throttle.js';
import { ScanProgressTracker } from './scan-progress.js';
import { addressBatches, type ScanRange } from './scan-range.js';

const PROGRESS_INTERVAL_MS = 100;
/** Progress persisted at most this often; a restart after a kill recounts `found` from the stored devices. */
const SAVE_INTERVAL_MS = 1000;
/**
 * Batches probed at once. Each batch waits out its own RMCP collection window, so the windows must
 * overlap: several batches run side by side and share the scan's probes in flight and its rate.
 */
const MAX_PARALLEL_BATCHES = 16;
const PROBES_PER_PARALLEL_BATCH = 32;
/** RMCP pings leave in sub-batches every this many ms, at the batch's share of the probe rate. */
const PING_GAP_MS = 10;
/**
 * At most 5,000 pings a second per batch (as before the paced probes): the pongs of a faster sweep
 * come back in a burst that a busy device or host answers after the collection window has closed.
 */
const MAX_PINGS_PER_GAP = 50;

export interface ScanRunDeps {
  pool: WorkerPool;
  /** Every device read of a scan passes the device gate, as every other device path does. */
  gate: DeviceGate;
  events: EventBus;
  logger: Logger;
  options: RestApiConfig['scan'];
  /** Persists the scan record (throttled by the caller's history). */
  save: (scan: Scan) => Promise<void>;
}

export interface ScanParameters {
  range: ScanRange;
  /** The credentials a scan may sign in with, in sign-in order (the gate unseals them per attempt). */
  credentialIds: string[];
  timeoutMs: number;
  concurrency: number;
}

/**
 * One scan: the range in batches of probe tasks (a few in parallel), each candidate interrogated
 * as soon as its batch reports it, every device recorded and announced. Cancellation is cooperative
 * through a shared flag, so worker threads are never torn down.
 */
export class ScanRun {
  readonly scan: Scan;
  private readonly cancelToken: CancelToken;
  private readonly progress;
  /**
   * `scanned` counts addresses whose outcome is known: silent through a whole batch (a pong may come
   * until the batch's window closes, so not before), or answered and recorded as a device (`found`).
   * A candidate still waiting for its interrogation is not scanned yet. The tracker's own `scanned`
   * (addresses probed) is not shown: it would count candidates not read yet.
   */
  private silentDone = 0;
  private readonly counts: ScanProgressTracker;
  /** Round trips measured by every probe of this scan, shared with the probe tasks (probe timeouts follow them). */
  private readonly rtt = createRttState();
  private lastSaved = 0;
  private saveTimer: NodeJS.Timeout | undefined;
  /** Device writes under way; a cancel waits for them so the cancelled scan counts what it stored. */
  private readonly recording = new Set<Promise<unknown>>();
  /** Candidates read before their pong could come: settled by a later release with it, or by their batch's final list. */
  private readonly awaitingProbed = new Map<string, { early: ProbeCandidate; settle: (probed: ProbedAddress) => void }>();

  constructor(
    scan: Scan,
    private readonly params: ScanParameters,
    private readonly deps: ScanRunDeps,
  ) {
    this.scan = scan;
    this.cancelToken = deps.pool.createCancelToken();
    const { ports } = deps.gate.settings;
    const tcpPorts = [ports.http, ports.https].filter((p) => p > 0).length;
    this.counts = new ScanProgressTracker(scan.total, scan.total * tcpPorts);
    this.progress = createProgressThrottle(PROGRESS_INTERVAL_MS, (progress: Omit<ScanProgressEvent, 'scanId' | 'total' | 'found'>) => {
      const { total, found } = this.scan;
      deps.events.publish('ScanProgress', { scanId: scan.id, scanned: progress.scanned, total, found, percent: progress.percent, probesDecided: progress.probesDecided, probesTotal: progress.probesTotal, etaSeconds: progress.etaSeconds });
    });
  }

  get cancelled(): boolean {
    return this.cancelToken.cancelled;
  }

  /**
   * Stops every task of the scan (they see the flag within ~50 ms); resolves once the device
   * writes already under way are done, so `found` matches what was stored.
   */
  async cancel(): Promise<void> {
    this.cancelToken.cancel();
    this.progress.stop();
    this.stopSaving();
    await Promise.allSettled([...this.recording]);
    this.scan.scanned = this.scannedNow();
  }

  /** Runs to the end; resolves when every task has finished, rejects if the pool fails. */
  async run(): Promise<void> {
    const { options } = this.deps;
    const batches = addressBatches(this.params.range, options.batchSize);
    const batchCount = Math.ceil(this.params.range.size / options.batchSize);
    const parallel = Math.max(1, Math.min(MAX_PARALLEL_BATCHES, batchCount, Math.ceil(this.params.concurrency / PROBES_PER_PARALLEL_BATCH)));
    const share = { concurrency: Math.max(1, Math.ceil(this.params.concurrency / parallel)), rate: options.probeRate / parallel };
    const interrogation = createSemaphore(options.interrogationConcurrency);
    const interrogations: Array<Promise<void>> = [];
    // A batch offers a candidate as soon as it is complete, and again in its final list.
    const offered = new Set<string>();
    const offer = (candidate: ProbeCandidate) => {
      if (offered.has(candidate.address)) return void (candidate.pongPending || this.settleProbed(candidate.address, candidate));
      if (this.cancelled) return;
      offered.add(candidate.address);
      this.counts.deviceOffered();
      const probed = candidate.pongPending ? new Promise<ProbedAddress>((settle) => this.awaitingProbed.set(candidate.address, { early: candidate, settle })) : undefined;
      interrogations.push(interrogation.run(() => this.interrogate(candidate, probed)).finally(() => this.counts.deviceSettled()));
    };
    let batchIndex = 0;
    const prober = async () => {
      for (let next = batches.next(); !next.done && !this.cancelled; next = batches.next()) {
        const index = batchIndex++;
        const candidates = await this.probe(index, next.value, share, offer);
        candidates.forEach(offer);
      }
    };
    try {
      await Promise.all(Array.from({ length: parallel }, prober));
      await Promise.all(interrogations);
    } catch (err) {
      this.cancelToken.cancel();
      await Promise.allSettled(interrogations);
      throw err;
    } finally {
      this.stopSaving();
    }
    if (!this.cancelled) {
      const { probesTotal } = this.counts.snapshot();
      this.progress.final({ scanned: this.scan.scanned, percent: 100, probesDecided: probesTotal, probesTotal, etaSeconds: 0 });
    }
  }

  private offerProgress(): void {
    // 100 % is reserved for the end: probing all addresses still leaves interrogations to finish.
    this.progress.offer({ ...this.counts.snapshot(), scanned: this.scan.scanned });
  }

  private scannedNow(): number {
    return Math.min(this.scan.total, this.silentDone + this.scan.found);
  }

  /** Only ever grows: both of its parts do. */
  private updateScanned(): void {
    this.scan.scanned = this.scannedNow();
    this.offerProgress();
    this.saveSoon();
  }

  /** Persists the progress within SAVE_INTERVAL_MS (the latest state wins), during probing and interrogation alike. */
  private saveSoon(): void {
    if (this.saveTimer || this.cancelled) return;
    const save = () => {
      this.saveTimer = undefined;
      this.lastSaved = Date.now();
      void this.deps.save(this.scan).catch((err: Error) => this.deps.logger.warn('could not save scan progress', { scanId: this.scan.id, error: err.message }));
    };
    this.saveTimer = setTimeout(save, Math.max(0, this.lastSaved + SAVE_INTERVAL_MS - Date.now()));
  }

  private stopSaving(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
  }

  /** The last word on a candidate read early: its ports and pong as released again, or in its batch's final list. */
  private settleProbed(address: string, probed?: ProbedAddress): void {
    const waiting = this.awaitingProbed.get(address);
    if (!waiting) return;
    this.awaitingProbed.delete(address);
    waiting.settle(probed ? { openPorts: probed.openPorts, pong: probed.pong } : { openPorts: waiting.early.openPorts, pong: null });
  }

  private async probe(index: number, addresses: string[], share: { concurrency: number; rate: number }, offer: (candidate: ProbeCandidate) => void): Promise<ProbeCandidate[]> {
    let final: ProbeCandidate[] = [];
    try {
      final = await this.probeBatch(index, addresses, share, offer);
      return final;
    } finally {
      // Every candidate of the batch read early is settled, whatever the batch's end (a cancel, a failed task: what was known).
      for (const candidate of final) this.settleProbed(candidate.address, candidate);
      for (const address of addresses) this.settleProbed(address);
    }
  }

  private async probeBatch(index: number, addresses: string[], share: { concurrency: number; rate: number }, offer: (candidate: ProbeCandidate) => void): Promise<ProbeCandidate[]> {
    const { gate, options } = this.deps;
    // Through the gate: each address is probed within its turn, never beside another connection of the gateway.
    const output = await gate.probe(
      'probe-batch',
      {
        addresses,
        connectTimeoutMs: this.params.timeoutMs,
        minTimeoutMs: options.minProbeTimeoutMs,
        rtt: this.rtt,
        concurrency: share.concurrency,
        ratePerSecond: share.rate,
        // The ping sweep goes alongside at the batch's share of the rate (one ping per address).
        rmcp: { windowMs: options.rmcpWindowMs, batchGapMs: PING_GAP_MS, batchSize: Math.max(1, Math.min(MAX_PINGS_PER_GAP, Math.floor((share.rate * PING_GAP_MS) / 1000))) },
        progressIntervalMs: PROGRESS_INTERVAL_MS,
      },
      {
        cancel: this.cancelToken,
        onProgress: (p) => {
          if (this.cancelled) return;
          p.candidates?.forEach(offer);
          this.counts.batchProgress(index, { probed: p.probed, probesDecided: p.probesDecided ?? 0 });
          this.offerProgress();
        },
      },
    );
    this.counts.batchDone(index, { probed: output.probed, probesDecided: output.probesDecided ?? 0 });
    if (output.socketShortages > 0) this.deps.logger.warn('probes ran short of sockets; in-flight lowered', { scanId: this.scan.id, shortages: output.socketShortages });
    // After a cancel the counts are final: a batch ending later adds nothing.
    if (this.cancelled) return [];
    this.silentDone += output.probed - output.candidates.length;
    this.updateScanned();
    return output.candidates;
  }

  /**
   * Reads the candidate through the device gate (its sign-in memory, credential order, turn and pin,
   * as every device path), which merges the read into the device list.
   */
  private async interrogate(candidate: ProbeCandidate, probed: Promise<ProbedAddress> | undefined): Promise<void> {
    if (this.cancelled) return;
    const { options } = this.deps;
    const recording = this.deps.gate.read(
      { address: candidate.address, openPorts: candidate.openPorts },
      {
        candidates: this.params.credentialIds,
        credentialAttempts: options.credentialAttemptsPerDevice,
        // The scan's timeoutMs bounds a probe; the device answered its probe, and a read connects (and
        // for TLS shakes hands) among up to deviceConnections others, so it gets the request bound.
        timeouts: { connectMs: Math.max(this.params.timeoutMs, options.requestTimeoutMs), firstByteMs: options.requestTimeoutMs, totalMs: options.requestTimeoutMs },
        cancel: this.cancelToken,
        record: { kind: 'scan', scanId: this.scan.id, pong: candidate.pong ?? null, ...(probed ? { probed } : {}) },
      },
    );
    this.recording.add(recording);
    try {
      // A read that ends after a cancel records nothing (the gate checks the token), so the cancelled scan's counts stay final.
      const { device, output } = await recording;
      if (!device) return;
      if (output?.error) this.deps.logger.debug('device not fully read', { scanId: this.scan.id, address: candidate.address, code: output.error.code });
      this.scan.found++;
      this.deps.events.publish('DeviceDiscovered', { scanId: this.scan.id, device });
      if (!this.cancelled) this.updateScanned();
    } finally {
      this.recording.delete(recording);
    }
  }
}
