/** The online-state machine: offline only after the configured missed probes, one change per flip, stored with its time. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../../core/log/logger.js';
import { openPresenceStates } from '../../../plugins/remote-monitor/presence-states.js';
import type { Device } from '../../../plugins/rest-api/api.js';
import { memoryStore } from './fixtures/memory-store.js';

const logger = createLogger({ level: 'silent' });
const device = (id: string, online = true): Device => ({
  id,
  ipAddress: '127.60.9.1',
  hostname: 'h',
  firmwareVersion: null,
  provisioningState: 'POST',
  tls: false,
  openPorts: [16992],
  authStatus: 'ok',
  online,
  firstSeen: '2026-01-01T00:00:00.000Z',
  lastSeen: '2026-01-01T00:00:00.000Z',
  lastScanId: null,
});
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

test('a device turns offline only after the configured number of silent probes in a row, and back on the first answer', async () => {
  const states = await openPresenceStates(memoryStore(), 2, logger);
  states.track(device('a'));
  const outcomes = [true, false, true, false, false, false, true, true];
  const changes = outcomes.map((answered, i) => states.observe('a', answered, at(i)));
  assert.deepEqual(
    changes.map((c) => (c ? [c.online, c.at] : null)),
    [null, null, null, null, [false, at(4).toISOString()], null, [true, at(6).toISOString()], null],
  );
  const state = states.get('a')!;
  assert.equal(state.since, at(6).toISOString());
  assert.equal(state.lastSeen, at(7).toISOString());
  assert.equal(states.observe('nobody', true, at(9)), null, 'untracked devices are ignored');
});

test('"answering" follows the last probe while "online" waits for the missed probes', async () => {
  const states = await openPresenceStates(memoryStore(), 3, logger);
  states.track(device('a'));
  states.observe('a', false, at(1));
  assert.deepEqual([states.get('a')!.online, states.get('a')!.answering], [true, false]);
  states.observe('a', true, at(2), 16993);
  assert.deepEqual([states.get('a')!.online, states.get('a')!.answering, states.get('a')!.port], [true, true, 16993]);
});

test('changes are stored with their time and survive a reopen; forgotten and orphaned records are deleted', async () => {
  const store = memoryStore();
  const first = await openPresenceStates(store, 1, logger);
  first.track(device('a'));
  first.track(device('b', false));
  first.observe('a', false, at(5));
  first.observe('b', true, at(6));
  await first.flush();
  const second = await openPresenceStates(store, 1, logger);
  assert.deepEqual(second.track(device('a', true)), { online: false, since: at(5).toISOString(), lastSeen: '2026-01-01T00:00:00.000Z', missed: 0, answering: false, port: null });
  second.pruneUntracked();
  second.forget('a');
  await second.flush();
  assert.deepEqual([...store.data.keys()], [], "b was not tracked after the reopen, a was forgotten");
});

test('without a stored record a device starts from what the registry says', async () => {
  const states = await openPresenceStates(memoryStore(), 2, logger);
  assert.equal(states.track(device('a', false)).online, false);
  assert.equal(states.track(device('b', true)).since, '2026-01-01T00:00:00.000Z');
  assert.equal(states.track(device('c'), { online: false, since: null, lastSeen: null }).since, null);
});

test('closing writes only the records that moved since they were written; an untouched device is never written', async () => {
  const store = memoryStore();
  const states = await openPresenceStates(store, 2, logger);
  states.track(device('answered'));
  states.track(device('untouched'));
  states.track(device('found'), { online: false, since: null, lastSeen: null });
  states.observe('answered', true, at(1));
  await states.flush();
  assert.deepEqual([...store.data.keys()].sort(), ['answered', 'found']);
  assert.deepEqual(JSON.parse(store.data.get('answered')!), { online: true, since: '2026-01-01T00:00:00.000Z', lastSeen: at(1).toISOString() });
  store.data.clear();
  await states.flush();
  assert.deepEqual([...store.data.keys()], [], 'nothing moved since the last close');
  const reopened = await openPresenceStates(store, 2, logger);
  assert.deepEqual(reopened.track(device('untouched', false)), { online: false, since: '2026-01-01T00:00:00.000Z', lastSeen: '2026-01-01T00:00:00.000Z', missed: 0, answering: false, port: null }, 'an unwritten device starts again from the registry');
});

test('a change whose write failed is written again at close', async () => {
  const store = memoryStore();
  store.put = async () => Promise.reject(new Error('disk full'));
  const states = await openPresenceStates(store, 1, logger);
  states.track(device('a'));
  states.observe('a', false, at(3));
  await states.flush();
  assert.deepEqual(JSON.parse(store.data.get('a')!), { online: false, since: at(3).toISOString(), lastSeen: '2026-01-01T00:00:00.000Z' });
});
