/**
 * The gateway's file descriptors, shared between device connections and scan probes (the devices
 * plugin's part of `ulimit -n`; scans ask the gate's `probeBudget`): every probe in
 * flight and every device read holds one socket, and a process past `ulimit -n` fails every new
 * socket (EMFILE), which a prober would take for a closed port. Checked at start and per scan.
 */
import { readFileSync } from 'node:fs';

/** Descriptors kept for everything else: the store, the HTTP listener and its clients, workers, logs. */
export const RESERVED_DESCRIPTORS = 256;
/** Below this many probes in flight a scan is refused rather than crawl. */
export const MIN_PROBES_IN_FLIGHT = 16;

/** The soft `ulimit -n` of this process (node raises it to the hard limit at start), or null when unknown. */
export function openFileLimit(limitsText?: string): number | null {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return null;
    }
  }
  const soft = /^Max open files\s+(\S+)/m.exec(text)?.[1];
  if (soft === undefined) return null;
  if (soft === 'unlimited') return Number.MAX_SAFE_INTEGER;
  const n = Number(soft);
  return Number.isFinite(n) ? n : null;
}

export interface SocketBudget {
  /** `ulimit -n`, or null when it could not be read. */
  fileLimit: number | null;
  /** Device connections allowed at once (the device turns' limit). */
  deviceConnections: number;
  /** Probes one scan may have in flight (each of `maxConcurrentScans` scans may use this many). */
  probesPerScan: number;
  /** Set when the limit lowered something: says what and how to raise it. */
  warning: string | null;
}

/**
 * Splits the descriptors: the reserve first, then the device connections asked for (at most half of
 * what is left), the rest shared by the scans that may run at once.
 */
export function socketBudget(fileLimit: number | null, asked: { deviceConnections: number; probesPerScan: number; maxConcurrentScans: number }): SocketBudget {
  if (fileLimit === null) return { fileLimit, deviceConnections: asked.deviceConnections, probesPerScan: asked.probesPerScan, warning: null };
  const usable = Math.max(0, fileLimit - RESERVED_DESCRIPTORS);
  const deviceConnections = Math.max(1, Math.min(asked.deviceConnections, Math.floor(usable / 2)));
  const probesPerScan = Math.max(0, Math.min(asked.probesPerScan, Math.floor((usable - deviceConnections) / Math.max(1, asked.maxConcurrentScans))));
  const lowered = deviceConnections < asked.deviceConnections || probesPerScan < asked.probesPerScan;
  const warning = lowered
    ? `ulimit -n is ${fileLimit}: device connections lowered to ${deviceConnections} (asked ${asked.deviceConnections}) and probes in flight per scan to ${probesPerScan} (asked ${asked.probesPerScan}, ${asked.maxConcurrentScans} scans at once); ` +
      `raise the limit (ulimit -n, systemd LimitNOFILE=) to at least ${RESERVED_DESCRIPTORS + asked.deviceConnections + asked.probesPerScan * asked.maxConcurrentScans} for full speed`
    : null;
  return { fileLimit, deviceConnections, probesPerScan, warning };
}
