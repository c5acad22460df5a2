import { PluginError } from '../plugins/plugin-errors.js';
import { withoutPaths } from '../store/store-errors.js';

/** What one readiness check answers. `reason` says why not (no secret: it is served unauthenticated). */
export interface ReadinessResult {
  ready: boolean;
  reason?: string;
}

/** A readiness check: cheap, bounded, run on every readiness request. */
export type ReadinessCheck = () => ReadinessResult | Promise<ReadinessResult>;

/** One check's answer in the readiness report. */
export interface ReadinessReportEntry {
  name: string;
  ready: boolean;
  reason?: string;
}

const CHECK_TIMEOUT_MS = 2000;
const MAX_REASON = 300;

/** The checks behind `GET /api/health/ready`: the kernel's (store, workers, each plugin) and those plugins add. */
export class ReadinessRegistry {
  readonly #checks = new Map<string, { owner: string; check: ReadinessCheck }>();

  /** Adds a check under a unique name; a second check of the same name is an error naming both owners. */
  add(owner: string, name: string, check: ReadinessCheck): void {
    const existing = this.#checks.get(name);
    if (existing) throw new PluginError('GW_ERR_PLUGIN_CLASH', `readiness check '${name}' of '${owner}' is already registered by '${existing.owner}'`);
    this.#checks.set(name, { owner, check });
  }

  /** Runs every check at once, each bounded in time; a check that throws or hangs is not ready. */
  async report(): Promise<ReadinessReportEntry[]> {
    return Promise.all([...this.#checks].map(([name, { check }]) => runCheck(name, check)));
  }
}

async function runCheck(name: string, check: ReadinessCheck): Promise<ReadinessReportEntry> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ReadinessResult>((resolve) => {
    timer = setTimeout(() => resolve({ ready: false, reason: `no answer within ${CHECK_TIMEOUT_MS} ms` }), CHECK_TIMEOUT_MS);
  });
  try {
    const result = await Promise.race([Promise.resolve().then(check), timeout]);
    const entry: ReadinessReportEntry = { name, ready: result.ready === true };
    // Served without a token: whatever a check says, no file path goes out.
    if (!entry.ready) entry.reason = withoutPaths(String(result.reason ?? 'not ready')).slice(0, MAX_REASON);
    return entry;
  } catch (err) {
    return { name, ready: false, reason: `check failed: ${withoutPaths(String((err as Error)?.message ?? err)).slice(0, MAX_REASON)}` };
  } finally {
    clearTimeout(timer);
  }
}
