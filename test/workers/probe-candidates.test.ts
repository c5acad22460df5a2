import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProbeCandidates } from '../../workers/amt/probe-candidates.js';
import type { RmcpPong } from '../../workers/amt/rmcp-codec.js';

const RMCP = 16623;
const pong = { provisioningState: 2 } as unknown as RmcpPong;

test('a candidate is complete once its TCP probes are done: with its pong if in, else marked pending and released again when the pong comes', () => {
  const found = new ProbeCandidates(RMCP);
  found.tcpFinished('10.0.0.1', [16992]);
  found.ponged('10.0.0.1', pong);
  found.tcpFinished('10.0.0.2', [16993]);
  found.ponged('10.0.0.3', pong);
  found.tcpFinished('10.0.0.4', []);
  assert.deepEqual(
    found.takeComplete(),
    [
      { address: '10.0.0.1', openPorts: [16992, RMCP].sort((a, b) => a - b), pong },
      { address: '10.0.0.2', openPorts: [16993], pong: null, pongPending: true },
    ],
    'TCP done and ponged; TCP done, pong not yet in (a read may start: no probe of ours is open there)',
  );
  assert.deepEqual(found.takeComplete(), [], 'a pong without TCP results waits for them');
  found.tcpFinished('10.0.0.3', []);
  found.ponged('10.0.0.2', pong);
  assert.deepEqual(
    found.takeComplete(),
    [
      { address: '10.0.0.3', openPorts: [RMCP], pong },
      { address: '10.0.0.2', openPorts: [RMCP, 16993], pong },
    ],
    'found by RMCP alone; the pending one again, now with its pong',
  );
  found.ponged('10.0.0.2', pong);
  found.ponged('10.0.0.1', pong);
  assert.deepEqual(found.takeComplete(), [], 'each candidate is released once more at most; an address with nothing found never');
  assert.equal(found.found, 3);
  assert.deepEqual(
    found.all(['10.0.0.4', '10.0.0.3', '10.0.0.2', '10.0.0.1']),
    [
      { address: '10.0.0.3', openPorts: [RMCP], pong },
      { address: '10.0.0.2', openPorts: [RMCP, 16993], pong },
      { address: '10.0.0.1', openPorts: [RMCP, 16992], pong },
    ],
    'the final list, in the order given',
  );
});

test('the final list keeps a candidate that never ponged, without the pending mark', () => {
  const found = new ProbeCandidates(RMCP);
  found.tcpFinished('10.0.0.5', [16992]);
  assert.deepEqual(found.takeComplete(), [{ address: '10.0.0.5', openPorts: [16992], pong: null, pongPending: true }]);
  assert.deepEqual(found.all(['10.0.0.5']), [{ address: '10.0.0.5', openPorts: [16992], pong: null }]);
});

test('without RMCP a candidate is complete as soon as its TCP probes are', () => {
  const found = new ProbeCandidates(0);
  found.tcpFinished('10.0.0.9', [16993, 16992]);
  assert.deepEqual(found.takeComplete(), [{ address: '10.0.0.9', openPorts: [16992, 16993], pong: null }]);
});
