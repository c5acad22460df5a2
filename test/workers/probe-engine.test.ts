/**
 * The probing engine for silent networks: timeouts that follow measured round trips within bounds
 * (nmap's SRTT + 4 × RTTVAR), new probes paced by a rate, probes in flight bounded, one connection
 * at a time per address. Against real sockets on
 * loopback where a peer can exist; the arithmetic with a given clock.
 */
import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { createRttState, RttEstimator } from '../../workers/amt/rtt-estimator.js';
import { ProbePacer } from '../../workers/amt/probe-pacer.js';
import { probeAddresses } from '../../workers/amt/probe-engine.js';
import { createConnector, socketConnector } from '../../workers/amt/connect-attempts.js';
import { startFleet, type Fleet } from '../sim/index.js';
import { fleetAddresses } from '../sim/address-range.js';

describe('adaptive probe timeout', () => {
  const bounds = { initialMs: 1000, minMs: 100, maxMs: 2000 };

  it('starts at the initial bound and follows SRTT + 4 x RTTVAR once answers are measured', () => {
    const rtt = new RttEstimator(createRttState(), bounds);
    assert.equal(rtt.timeoutMs(), 1000, 'nothing measured yet');
    rtt.sample(200);
    // First sample: SRTT = 200, RTTVAR = 100: 200 + 400.
    assert.equal(rtt.timeoutMs(), 600);
    rtt.sample(200);
    // delta 0: SRTT stays, RTTVAR shrinks by a quarter: 200 + 4 x 75.
    assert.equal(rtt.timeoutMs(), 500);
    assert.deepEqual(rtt.snapshot(), { srttMs: 200, rttvarMs: 75, samples: 2 });
  });

  it('stays within its bounds however fast or slow the answers', () => {
    const fast = new RttEstimator(createRttState(), bounds);
    for (let i = 0; i < 50; i++) fast.sample(0.05);
    assert.equal(fast.timeoutMs(), 100, 'loopback answers in microseconds: the lower bound holds');
    const slow = new RttEstimator(createRttState(), bounds);
    slow.sample(5000);
    assert.equal(slow.timeoutMs(), 2000, 'the upper bound holds');
  });

  it('is shared through its state: an estimator on the same memory learns from the other one', () => {
    const state = createRttState();
    const a = new RttEstimator(state, bounds);
    const b = new RttEstimator(state, bounds);
    a.sample(300);
    assert.equal(b.timeoutMs(), 900);
    const other = new RttEstimator(createRttState(), bounds);
    assert.equal(other.timeoutMs(), 1000);
  });
});

describe('probe pacing', () => {
  it('grants the rate over time, never more than the burst at once, and all when unpaced', () => {
    const pacer = new ProbePacer(1000, 10, 0);
    assert.equal(pacer.take(100, 0), 10, 'a full bucket at the start');
    assert.equal(pacer.take(100, 0), 0, 'then empty');
    assert.equal(pacer.take(100, 5), 5, '1,000/s for 5 ms');
    assert.equal(pacer.take(100, 10_000), 10, 'a long pause does not turn into a flood');
    assert.equal(pacer.take(3, 20_000), 3, 'never more than wanted');
    assert.equal(new ProbePacer(0).take(5000), 5000, 'rate 0: unpaced');
    let granted = 0;
    const steady = new ProbePacer(2000, 40, 0);
    for (let t = 0; t <= 1000; t += 5) granted += steady.take(1000, t);
    assert.ok(granted >= 2000 && granted <= 2040, `a second at 2,000/s grants about 2,000 (got ${granted})`);
  });
});

for (const [name, connector] of [
  ['TCP handles', createConnector],
  ['net.Socket', socketConnector],
] as const) {
  describe(`probe engine on loopback, on ${name}`, () => {
    let fleet: Fleet;
    before(async () => {
      // Every device listens on both management ports, so two probes at once would show.
      fleet = await startFleet({ count: 8, base: '127.20.10.1', rmcpPort: 0, tlsEvery: 1, httpOnTlsDevices: true, seed: 'engine' });
    });
    after(() => fleet?.stop());

    it('finds open ports, decides every probe, bounds the sockets in flight and never opens two to one address', async () => {
      const devices = fleet.devices.map((d) => d.address);
      const refusing = fleetAddresses('127.20.11.1', 40);
      const done = new Map<string, number[]>();
      let decided = 0;
      const result = await probeAddresses([...devices, ...refusing], {
        ports: [16992, 16993],
        maxInFlight: 5,
        ratePerSecond: 0,
        connector,
        rtt: new RttEstimator(createRttState(), { initialMs: 2000, minMs: 500, maxMs: 2000 }),
        onProbeDecided: () => void decided++,
        onAddressDone: (address, open) => done.set(address, open),
      });
      assert.equal(result.decided, 96);
      assert.equal(decided, 96);
      assert.equal(done.size, 48, 'every address reported once');
      for (const address of devices) assert.deepEqual(done.get(address), [16992, 16993], address);
      for (const address of refusing) assert.deepEqual(done.get(address), [], address);
      assert.ok(result.peakInFlight <= 5, `at most 5 sockets at once (saw ${result.peakInFlight})`);
      for (const device of fleet.devices) assert.equal(device.counters().peakOpenConnections, 1, `${device.address}: one probe at a time`);
    });

    it('does not take a device for silence when its thread stalls before the answer is handled', async () => {
      // Every decision blocks the thread for 300 ms (a loaded machine descheduling it), longer than
      // the 200 ms timeout: a probe started just before a stall has its accept waiting in the kernel
      // when the timeouts are next checked. Only the time the thread was awake may count against it.
      const block = new Int32Array(new SharedArrayBuffer(4));
      const devices = fleet.devices.slice(0, 3).map((d) => d.address);
      const refusing = fleetAddresses('127.20.13.1', 4);
      const addresses = [refusing[0]!, refusing[1]!, devices[0]!, refusing[2]!, devices[1]!, refusing[3]!, devices[2]!];
      const done = new Map<string, number[]>();
      await probeAddresses(addresses, {
        ports: [16992],
        maxInFlight: 2,
        ratePerSecond: 0,
        connector,
        rtt: new RttEstimator(createRttState(), { initialMs: 200, minMs: 200, maxMs: 200 }),
        onProbeDecided: () => void Atomics.wait(block, 0, 0, 300),
        onAddressDone: (address, open) => done.set(address, open),
      });
      for (const address of devices) assert.deepEqual(done.get(address), [16992], `${address} found open`);
      for (const address of refusing) assert.deepEqual(done.get(address), [], address);
    });

    it('leaves the stack traces of the thread\'s other work alone unless its sockets make errors', async () => {
      const limits = new Set<number>();
      const before = Error.stackTraceLimit;
      await probeAddresses(fleetAddresses('127.20.14.1', 4), {
        ports: [16992],
        maxInFlight: 4,
        ratePerSecond: 0,
        connector,
        rtt: new RttEstimator(createRttState(), { initialMs: 1000, minMs: 100, maxMs: 1000 }),
        onProbeDecided: () => void limits.add(Error.stackTraceLimit),
        onAddressDone: () => undefined,
      });
      // net.Socket makes an Error (and its stack) for every refusal: stacks are off while it probes.
      assert.deepEqual([...limits], [connector === socketConnector ? 0 : before]);
      assert.equal(Error.stackTraceLimit, before, 'restored at the end');
    });

    it('stops at once when aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      const result = await probeAddresses(fleetAddresses('127.20.12.1', 100), {
        ports: [16992],
        maxInFlight: 10,
        ratePerSecond: 0,
        connector,
        rtt: new RttEstimator(createRttState(), { initialMs: 1000, minMs: 100, maxMs: 1000 }),
        signal: controller.signal,
        onAddressDone: () => assert.fail('nothing is probed after an abort'),
      });
      assert.equal(result.decided, 0);
    });
  });
}
