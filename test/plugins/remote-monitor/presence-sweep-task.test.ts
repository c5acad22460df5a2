/** The `presence-sweep` task against the simulator: the presence ping first, the management port for the silent. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import presenceSweep from '../../../workers/tasks/presence-sweep.js';
import { startFleet, type Fleet } from '../../sim/fleet.js';
import { SIM_RMCP_PORT } from '../../helpers/scan-helpers.js';
import { directTools } from '../../workers/helpers.js';

let pinging: Fleet;
let silent: Fleet;

before(async () => {
  pinging = await startFleet({ count: 4, base: '127.61.4.1', rmcpPort: SIM_RMCP_PORT, seed: 'sweep-a' });
  // Devices that ignore the ping (RMCP off) and speak TLS only: found by a connect to 16993.
  silent = await startFleet({ count: 2, base: '127.61.4.11', rmcpPort: 0, tlsEvery: 1, seed: 'sweep-b' });
});

after(async () => {
  await pinging?.stop();
  await silent?.stop();
});

test('devices answering the ping count as present; the silent ones are checked on their management ports', async () => {
  const gone = pinging.devices[1]!;
  await gone.stop();
  try {
    const targets = [
      ...pinging.devices.map((d) => ({ address: d.address, tcpPorts: [16992] })),
      ...silent.devices.map((d) => ({ address: d.address, tcpPorts: [16992, 16993] })),
      { address: '127.61.4.50', tcpPorts: [16992] },
      { address: pinging.devices[0]!.address, tcpPorts: [16992] },
    ];
    const output = await presenceSweep({ targets, rmcpPort: SIM_RMCP_PORT, rmcp: { windowMs: 300 }, connectTimeoutMs: 2000 }, directTools());
    const byAddress = new Map(output.results.map((r) => [r.address, r]));
    assert.equal(output.results.length, 7, 'one result per distinct address');
    for (const d of [pinging.devices[0]!, pinging.devices[2]!, pinging.devices[3]!]) assert.deepEqual(byAddress.get(d.address), { address: d.address, alive: true, via: 'rmcp', port: 16992 });
    assert.deepEqual(byAddress.get(gone.address), { address: gone.address, alive: false, via: null, port: null });
    for (const d of silent.devices) assert.deepEqual(byAddress.get(d.address), { address: d.address, alive: true, via: 'tcp', port: 16993 });
    assert.equal(byAddress.get('127.61.4.50')!.alive, false);
    assert.equal(output.pongs, 3);
    assert.equal(output.tcpChecked, 4);
    assert.equal(output.cancelled, false);
  } finally {
    await gone.start();
  }
});

test('a cancelled sweep says so and stops early', async () => {
  const controller = new AbortController();
  controller.abort();
  const output = await presenceSweep({ targets: [{ address: '127.61.4.50', tcpPorts: [16992] }], rmcpPort: SIM_RMCP_PORT }, directTools(controller.signal));
  assert.equal(output.cancelled, true);
  assert.equal(output.tcpChecked, 0);
});
