/** The scans one connection asked for; none means every scan. */
export class ScanSubscriptions {
  private readonly scans = new Set<string>();

  constructor(readonly limit: number) {}

  /** True when a connection with these subscriptions receives events of `scanId`. */
  wants(scanId: string): boolean {
    return this.scans.size === 0 || this.scans.has(scanId);
  }

  add(scanId: string): boolean {
    if (!this.scans.has(scanId) && this.scans.size >= this.limit) return false;
    this.scans.add(scanId);
    return true;
  }

  remove(scanId: string): void {
    this.scans.delete(scanId);
  }
}

/** What a hub method returns: the Completion's result, or its error. */
export type MethodOutcome = { result: unknown } | { error: string };

const MAX_SCAN_ID_LENGTH = 200;

function scanIdArgument(method: string, args: unknown[]): string | MethodOutcome {
  const [scanId] = args;
  if (args.length !== 1 || typeof scanId !== 'string' || scanId.length === 0 || scanId.length > MAX_SCAN_ID_LENGTH) {
    return { error: `${method} takes one argument: the scan id (a non-empty string)` };
  }
  return scanId;
}

/**
 * Runs a client's invocation of a hub method (CONTRACT section 7): `SubscribeScan(scanId)` and
 * `UnsubscribeScan(scanId)`, each answering null.
 */
export function invokeHubMethod(target: string, args: unknown[], subscriptions: ScanSubscriptions): MethodOutcome {
  switch (target) {
    case 'SubscribeScan': {
      const scanId = scanIdArgument(target, args);
      if (typeof scanId !== 'string') return scanId;
      return subscriptions.add(scanId) ? { result: null } : { error: `a connection may subscribe to at most ${subscriptions.limit} scans` };
    }
    case 'UnsubscribeScan': {
      const scanId = scanIdArgument(target, args);
      if (typeof scanId !== 'string') return scanId;
      subscriptions.remove(scanId);
      return { result: null };
    }
    default:
      return { error: `Unknown hub method '${target.slice(0, 100)}'` };
  }
}
