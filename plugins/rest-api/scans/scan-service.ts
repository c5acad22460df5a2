import { HttpError } from '../../../core/plugin-api.js';
import type { CredentialVault } from 'amt-gateway/devices';
import type { Scan } from '../api.js';
import { RestApiErrors } from '../errors.js';
import type { ScanHistory } from './scan-history.js';
import { parseScanRange } from './scan-range.js';
import { ScanRun, type ScanRunDeps } from './scan-runner.js';
import type { StartScanRequest } from './scan-schemas.js';

export type { StartScanRequest } from './scan-schemas.js';

/** Starts, cancels and lists scans; bounds how many run at once, in all and of one user. */
export interface ScanService {
  /** Starts a scan for the user `startedBy` (its id). */
  start(request: StartScanRequest, startedBy: string): Promise<Scan>;
  cancel(id: string): Promise<Scan>;
  get(id: string): Scan | undefined;
  list(): Scan[];
  /** Stops every running scan, recording it as interrupted (graceful shutdown). */
  stopAll(): Promise<void>;
}

export function createScanService(deps: Omit<ScanRunDeps, 'save'>, history: ScanHistory, vault: CredentialVault): ScanService {
  const running = new Map<string, { run: ScanRun; done: Promise<Scan>; startedBy: string }>();
  const { options } = deps;
  const snapshot = (scan: Scan): Scan => ({ ...scan });
  const save = (scan: Scan) => history.save(snapshot(scan));

  /** The credentials the scan signs in with, in sign-in order; the gate unseals each for its attempt. */
  const credentialsFor = (credentialId: string | undefined): string[] => {
    const stored = vault.list().map((c) => c.id);
    if (credentialId === undefined) return stored;
    if (!stored.includes(credentialId)) {
      throw new HttpError(422, 'GW_ERR_CREDENTIAL_UNKNOWN', `credential '${credentialId}' does not exist`, { errors: [{ path: 'body.credentialId', message: 'no such credential' }] });
    }
    return [credentialId];
  };

  const finish = async (run: ScanRun, status: Scan['status'], error?: string) => {
    const scan = run.scan;
    if (scan.status !== 'running') return;
    scan.status = status;
    scan.finishedAt = new Date().toISOString();
    if (error) scan.error = error;
    await save(scan);
  };

  /** The probes in flight a scan may have within `ulimit -n`; refuses the scan when that is too few to be useful. */
  const probesInFlight = (asked: number): number => {
    const { fileLimit, probesPerScan: allowed, minimum } = deps.gate.probeBudget({ probesPerScan: asked, maxConcurrentScans: options.maxConcurrentScans });
    if (allowed < Math.min(asked, minimum)) throw RestApiErrors.tooFewSockets(fileLimit ?? 0, allowed);
    if (allowed < asked) deps.logger.warn('probes in flight lowered to fit ulimit -n', { asked, allowed, fileLimit });
    return allowed;
  };

  return {
    async start(request, startedBy) {
      if ([...running.values()].filter((r) => r.startedBy === startedBy).length >= options.maxConcurrentScansPerUser) throw RestApiErrors.tooManyUserScans(options.maxConcurrentScansPerUser);
      if (running.size >= options.maxConcurrentScans) throw RestApiErrors.tooManyScans(options.maxConcurrentScans);
      const range = parseScanRange(request.range, options.maxAddresses, deps.gate.settings.allowedNetworks);
      const timeoutMs = Math.min(request.timeoutMs ?? options.defaultTimeoutMs, options.maxTimeoutMs);
      const asked = Math.min(request.concurrency ?? options.defaultConcurrency, options.maxConcurrency);
      const concurrency = probesInFlight(asked);
      const credentialIds = credentialsFor(request.credentialId);
      const scan: Scan = { id: history.newId(), range: request.range, status: 'running', total: range.size, scanned: 0, found: 0, startedAt: new Date().toISOString() };
      await save(scan);
      const run = new ScanRun(scan, { range, credentialIds, timeoutMs, concurrency }, { ...deps, save });
      deps.events.publish('ScanStarted', snapshot(scan));
      deps.logger.info('scan started', { scanId: scan.id, range: scan.range, total: scan.total, timeoutMs, concurrency });
      const done = run.run().then(
        async () => {
          if (run.cancelled) return snapshot(scan);
          await finish(run, 'completed');
          deps.events.publish('ScanCompleted', snapshot(scan));
          deps.logger.info('scan completed', { scanId: scan.id, found: scan.found, scanned: scan.scanned });
          return snapshot(scan);
        },
        async (err: Error) => {
          if (run.cancelled && scan.status !== 'running') return snapshot(scan);
          deps.logger.error('scan failed', { scanId: scan.id, error: err.message });
          await finish(run, 'failed', 'the scan stopped on an internal error; see the gateway log');
          deps.events.publish('ScanFailed', snapshot(scan));
          return snapshot(scan);
        },
      );
      running.set(scan.id, { run, done: done.finally(() => running.delete(scan.id)), startedBy });
      return snapshot(scan);
    },
    async cancel(id) {
      const entry = running.get(id);
      if (!entry) {
        const scan = history.get(id);
        if (!scan) throw RestApiErrors.scanNotFound(id);
        throw RestApiErrors.scanFinished(id, scan.status);
      }
      await entry.run.cancel();
      await finish(entry.run, 'cancelled');
      deps.events.publish('ScanCancelled', snapshot(entry.run.scan));
      deps.logger.info('scan cancelled', { scanId: id, found: entry.run.scan.found });
      return snapshot(entry.run.scan);
    },
    get: (id) => {
      const live = running.get(id)?.run.scan;
      return live ? snapshot(live) : history.get(id);
    },
    list: () => history.list().map((s) => (running.has(s.id) ? snapshot(running.get(s.id)!.run.scan) : s)),
    async stopAll() {
      const entries = [...running.values()];
      await Promise.all(entries.map(({ run }) => run.cancel()));
      for (const { run } of entries) await finish(run, 'interrupted', 'the gateway stopped while the scan was running');
      await Promise.allSettled(entries.map((e) => e.done));
    },
  };
}
