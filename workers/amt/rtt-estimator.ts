/**
 * Probe timeouts that follow the round-trip times measured on this scan, as nmap's do (RFC 6298's
 * smoothed RTT and its variance): timeout = SRTT + 4 × RTTVAR, kept within configured bounds, and
 * the initial bound until the first answer. The estimate lives in shared memory so that every probe
 * task of a scan, on any worker thread, learns from every answer: a batch of silent addresses gets
 * no answer of its own to learn from.
 */

/** Slots of the shared state: smoothed RTT and its variance in microseconds, samples taken, a lock. */
const SRTT = 0;
const RTTVAR = 1;
const SAMPLES = 2;
const LOCK = 3;

/** A scan's shared RTT state (structured-clone-able: the memory is shared, not copied, with workers). */
export function createRttState(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT));
}

export interface TimeoutBounds {
  /** The timeout before any answer was measured. */
  initialMs: number;
  minMs: number;
  maxMs: number;
}

export interface RttSnapshot {
  srttMs: number;
  rttvarMs: number;
  samples: number;
}

/** Reads and updates a scan's shared RTT state; `state` from {@link createRttState}, or a private one. */
export class RttEstimator {
  constructor(
    private readonly state: Int32Array = createRttState(),
    private readonly bounds: TimeoutBounds,
  ) {}

  /** Records one measured round trip (a connect accepted or refused), in milliseconds. */
  sample(rttMs: number): void {
    const r = Math.max(1, Math.round(rttMs * 1000));
    const s = this.state;
    // A few integer writes under a spin lock: workers update rarely enough that it never spins long.
    while (Atomics.compareExchange(s, LOCK, 0, 1) !== 0);
    try {
      if (s[SAMPLES] === 0) {
        s[SRTT] = r;
        s[RTTVAR] = r >> 1;
      } else {
        const delta = r - s[SRTT]!;
        s[SRTT] = s[SRTT]! + Math.round(delta / 8);
        s[RTTVAR] = s[RTTVAR]! + Math.round((Math.abs(delta) - s[RTTVAR]!) / 4);
      }
      s[SAMPLES] = Math.min(0x7fffffff, s[SAMPLES]! + 1);
    } finally {
      Atomics.store(s, LOCK, 0);
    }
  }

  /** The probe timeout now: SRTT + 4 × RTTVAR within [minMs, maxMs]; `initialMs` before the first sample. */
  timeoutMs(): number {
    const { minMs, maxMs, initialMs } = this.bounds;
    if (Atomics.load(this.state, SAMPLES) === 0) return Math.min(maxMs, Math.max(minMs, initialMs));
    const us = Atomics.load(this.state, SRTT) + 4 * Atomics.load(this.state, RTTVAR);
    return Math.min(maxMs, Math.max(minMs, us / 1000));
  }

  snapshot(): RttSnapshot {
    return {
      srttMs: Atomics.load(this.state, SRTT) / 1000,
      rttvarMs: Atomics.load(this.state, RTTVAR) / 1000,
      samples: Atomics.load(this.state, SAMPLES),
    };
  }
}
