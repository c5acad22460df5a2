/**
 * A scan's batch in a cluster: the addresses of devices the registry knows are probed each within the
 * device's whole turn (device-turns.ts: this gateway's queue and turn table, then the cluster's), as
 * an operation of the gate is, because another instance may be talking to exactly those devices through
 * its gate. Every other address is probed as on one gateway, within this gateway's turn table only, so
 * a scan of a range of unknown addresses pays no round trip to the cluster's store per address.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { WorkerPool } from '../../../core/plugin-api.js';
import { forEachBounded } from '../../../workers/amt/tcp-probe.js';
import { CONNECTION_SETTLE_MS } from '../../../workers/amt/turn-table.js';
import type { ProbeBatchInput, ProbeBatchOutput, ProbeBatchProgress } from '../../../workers/tasks/task-types.js';
import type { ProbeOptions } from '../api.js';
import type { DeviceTurns } from './device-turns.js';

/**
 * Known devices of one batch probed at once at most: each holds its device's turn (a lease of the
 * cluster's) while its probe runs, so a batch full of them holds no more leases than this.
 */
const KNOWN_PROBES_AT_ONCE = 16;

type BatchInput = Omit<ProbeBatchInput, 'turns'> & Required<Pick<ProbeBatchInput, 'ports'>>;
type RunBatch = (input: ProbeBatchInput, options: ProbeOptions<ProbeBatchProgress> | undefined) => Promise<ProbeBatchOutput>;

/**
 * Probes `known` addresses within the gate's turns, one task each, and the others in one task within
 * the turn table (`runUnknown`), at the same time; their progress and outputs added up as one batch's.
 */
export async function probeWithKnownDevices(
  pool: WorkerPool,
  turns: DeviceTurns,
  input: BatchInput,
  known: ReadonlySet<string>,
  runUnknown: RunBatch,
  options: ProbeOptions<ProbeBatchProgress> | undefined,
): Promise<ProbeBatchOutput> {
  const started = performance.now();
  const unknown = input.addresses.filter((address) => !known.has(address));
  const total = input.addresses.length;
  const probesTotal = total * [input.ports.http, input.ports.https].filter((p) => (p ?? 0) > 0).length;
  // The latest progress of the unknown addresses' task, and what the known ones' tasks finished.
  let unknownSoFar = { probed: 0, found: 0, probesDecided: 0 };
  const knownDone = { probed: 0, found: 0, probesDecided: 0 };
  const report = (candidates?: ProbeBatchProgress['candidates']): void => {
    options?.onProgress?.({
      probed: unknownSoFar.probed + knownDone.probed,
      total,
      found: unknownSoFar.found + knownDone.found,
      probesDecided: unknownSoFar.probesDecided + knownDone.probesDecided,
      probesTotal,
      ...(candidates?.length ? { candidates } : {}),
    });
  };
  const unknownRun = unknown.length
    ? runUnknown(
        { ...input, addresses: unknown },
        {
          ...(options?.cancel ? { cancel: options.cancel } : {}),
          onProgress: (p) => {
            unknownSoFar = { probed: p.probed, found: p.found, probesDecided: p.probesDecided };
            report(p.candidates);
          },
        },
      )
    : undefined;
  const knownOutputs: ProbeBatchOutput[] = [];
  const knownRun = forEachBounded([...known], KNOWN_PROBES_AT_ONCE, async (address) => {
    if (options?.cancel?.cancelled) return;
    const output = await turns.run(address, async () => {
      // A cancel that came while the device's turn was awaited: it is given back without a probe.
      if (options?.cancel?.cancelled) return undefined;
      // No turn table in the task: this thread holds the device's turn for it.
      const probed = await pool.run('probe-batch', { ...input, addresses: [address] }, options?.cancel ? { cancel: options.cancel } : {});
      // A connection the device accepted was closed without waiting for its side: it takes in the close first.
      const tcp = new Set([input.ports.http, input.ports.https]);
      if (probed.candidates.some((c) => c.openPorts.some((port) => tcp.has(port)))) await delay(CONNECTION_SETTLE_MS);
      return probed;
    });
    if (!output) return;
    knownOutputs.push(output);
    knownDone.probed += output.probed;
    knownDone.found += output.candidates.length;
    knownDone.probesDecided += output.probesDecided;
    report(output.candidates);
  });
  const [unknownOutput] = await Promise.all([unknownRun, knownRun]);
  const outputs = unknownOutput ? [unknownOutput, ...knownOutputs] : knownOutputs;
  const cancelled = options?.cancel?.cancelled === true || outputs.some((o) => o.cancelled);
  return {
    probed: outputs.reduce((sum, o) => sum + o.probed, 0),
    candidates: outputs.flatMap((o) => o.candidates),
    cancelled,
    elapsedMs: Math.round(performance.now() - started),
    probesDecided: outputs.reduce((sum, o) => sum + o.probesDecided, 0),
    timeoutMs: Math.max(0, ...outputs.map((o) => o.timeoutMs)),
    socketShortages: outputs.reduce((sum, o) => sum + o.socketShortages, 0),
  };
}
