/**
 * The machines of the activation benchmark, in a process of their own (`node --import tsx
 * test/bench/activation-field.ts --url ws://... --count N --base 127.203.0.1 --profile NAME
 * [--delay 50-400]`): N unprovisioned simulated machines, each answering every request after its own
 * delay, and their agents. It prints `{"ready":...}`, waits for `go` on stdin, runs every agent at
 * once, prints the outcome (`{"activated":...}`: each machine's requests, delay, time), then the time
 * until every machine that was told to dial in has its tunnel up, and stays until stdin closes.
 */
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { SimMachine } from '../sim/activation/sim-machine.js';
import { runAgent } from '../sim/activation/sim-agent.js';

const { values } = parseArgs({ options: { url: { type: 'string' }, count: { type: 'string' }, base: { type: 'string' }, profile: { type: 'string' }, delay: { type: 'string' } } });
const count = Number(values.count ?? 10);
const [a, b, c, d] = (values.base ?? '127.203.0.1').split('.').map(Number) as [number, number, number, number];
const delay = values.delay ? (values.delay.split('-').map(Number) as [number, number]) : undefined;
const print = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

const address = (i: number) => {
  const n = c * 254 + (d - 1) + i;
  return `${a}.${b + Math.floor(n / (254 * 256))}.${Math.floor(n / 254) % 256}.${(n % 254) + 1}`;
};

const machines: SimMachine[] = [];
for (let i = 0; i < count; i++) machines.push(new SimMachine({ index: i, address: address(i), seed: `activation-bench-${values.base}`, ...(delay ? { responseDelayMs: delay } : {}), ciraReconnectMs: 2_000 }));
await Promise.all(machines.map((m) => m.start()));
print({ ready: count });

const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => lines.once('line', () => resolve()));
const t0 = performance.now();
const results = await Promise.all(
  machines.map(async (machine) => {
    // rpc-go gives the firmware 1.5 s to start answering; on a loaded machine this process's own lag would be taken for the firmware's.
    const result = await runAgent({ url: values.url!, machine, command: 'activate', profile: values.profile!, firstByteMs: 10_000 });
    return { result, ms: performance.now() - t0, machine };
  }),
);
const requests = (m: SimMachine) => [...m.firmware.calls.values()].reduce((x, y) => x + y, 0) + m.firmware.digest.challenges;
const failures = results.filter((r) => r.result.outcome !== 'success');
print({
  activated: results.length - failures.length,
  wallMs: Math.max(...results.map((r) => r.ms)),
  // The serial floor of each machine: its requests, each answered after its delay; the fleet's is the slowest machine's.
  floorMs: Math.max(...results.map((r) => requests(r.machine) * r.machine.firmware.options.responseDelayMs)),
  requests: results.map((r) => requests(r.machine)),
  errors: failures.slice(0, 5).map((r) => r.result.message || `closed (${r.result.refusedStatus ?? 'no status'})`),
});
const dialing = machines.filter((m) => m.dialTarget() !== null || m.firmware.cira.servers.length > 0);
if (dialing.length > 0) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && !dialing.every((m) => m.cira?.status === 'connected')) await new Promise((resolve) => setTimeout(resolve, 50));
  print({ dialed: dialing.filter((m) => m.cira?.status === 'connected').length, dialMs: performance.now() - t0 });
} else {
  print({ dialed: 0, dialMs: null });
}
await new Promise<void>((resolve) => lines.once('close', () => resolve()));
await Promise.all(machines.map((m) => m.stop()));
process.exit(0);
