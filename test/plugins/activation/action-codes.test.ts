/**
 * One-time codes live in the plugin's store: hashed only, with their expiry, spent exactly once even
 * when two agents show one at the same time, swept when expired, and still there after a restart
 * (and so for any gateway on the same store).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { openStore, type GatewayStore } from '../../../core/store/level-store.js';
import { createActionCodes } from '../../../plugins/activation/store/action-codes.js';
import type { SimMachine } from '../../sim/activation/sim-machine.js';
import { agent, createProfile, startActivationGateway, startMachine, type ActivationGateway } from './activation-kit.js';

const UUID = '4c4c4544-0042-3010-8052-b4c04f4e3232';

describe('one-time codes in the store', () => {
  let dir: string;
  let store: GatewayStore;
  let clock = 1_800_000_000_000;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'amtgw-codes-'));
    store = await openStore(dir);
  });
  after(async () => {
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const raw = async () => {
    const entries: string[] = [];
    for await (const page of store.rawPages()) for (const [key, value] of page) entries.push(`${key}=${value}`);
    return entries.join('\n');
  };

  test('keeps only the code\'s hash, never the code', async () => {
    const codes = createActionCodes(store.namespace('plugin:activation').namespace('codes'), () => clock);
    const { code } = await codes.issue(UUID, 60);
    assert.match(code, /^[A-Z2-9]{12}$/);
    const stored = await raw();
    assert.ok(stored.includes(UUID), 'filed under the device');
    assert.ok(!stored.includes(code), 'the code itself is nowhere in the store');
    assert.equal(await codes.consume(UUID, code), true);
  });

  test('two consumes of one code at the same time: exactly one wins', async () => {
    for (let round = 0; round < 20; round++) {
      const codes = createActionCodes(store.namespace('plugin:activation').namespace('codes'), () => clock);
      // A second handle on the same namespace, as another part of the gateway would hold it.
      const other = createActionCodes(store.namespace('plugin:activation').namespace('codes'), () => clock);
      const { code } = await codes.issue(UUID, 60);
      const outcomes = await Promise.all([codes.consume(UUID, code), other.consume(UUID, code), codes.consume(UUID, code)]);
      assert.equal(outcomes.filter(Boolean).length, 1, `round ${round}: ${outcomes.join(',')}`);
    }
  });

  test('a wrong code, or another device\'s, spends nothing; a new code replaces the one before', async () => {
    const codes = createActionCodes(store.namespace('plugin:activation').namespace('codes'), () => clock);
    const { code } = await codes.issue(UUID, 60);
    assert.equal(await codes.consume(UUID, 'ABCDEFGHJKLM'), false);
    assert.equal(await codes.consume(UUID, 'Not-A-C0de!'), false);
    assert.equal(await codes.consume('4c4c4544-0042-3010-8052-b4c04f4e3233', code), false);
    const replacement = await codes.issue(UUID, 60);
    assert.equal(await codes.consume(UUID, code), false, 'the earlier code no longer works');
    assert.equal(await codes.consume(UUID, replacement.code), true);
  });

  test('an expired code does not work, and the sweep removes expired codes only', async () => {
    const codes = createActionCodes(store.namespace('plugin:activation').namespace('codes'), () => clock);
    const old = await codes.issue(UUID, 60);
    const live = await codes.issue('4c4c4544-0042-3010-8052-b4c04f4e3234', 600);
    assert.equal(old.expiresAt, new Date(clock + 60_000).toISOString());
    clock += 61_000;
    assert.equal(await codes.sweep(), 1);
    assert.equal(await codes.sweep(), 0);
    assert.equal(await codes.consume(UUID, old.code), false);
    const expiring = await codes.issue(UUID, 60);
    clock += 60_000;
    assert.equal(await codes.consume(UUID, expiring.code), false, 'expired at its expiresAt');
    assert.equal(await codes.consume('4c4c4544-0042-3010-8052-b4c04f4e3234', live.code), true);
  });
});

describe('a one-time code across a restart of the gateway', () => {
  let dataDir: string;
  const masterKey = randomBytes(32).toString('base64');
  let gateway: ActivationGateway | undefined;
  let machine: SimMachine;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'amtgw-codes-restart-'));
    machine = await startMachine(0, {}, 10);
  });
  after(async () => {
    await machine?.stop();
    await gateway?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  test('issued before a restart, it works once after it; the second use fails', async () => {
    gateway = await startActivationGateway({ dataDir, masterKey });
    await createProfile(gateway, { name: 'generated', mode: 'ccm' });
    const activated = await agent(gateway, machine, { command: 'activate', profile: 'generated' });
    assert.equal(activated.outcome, 'success', activated.message);
    const res = await gateway.send('POST', '/api/activation/codes', { uuid: machine.uuid });
    assert.equal(res.status, 201, await res.clone().text());
    const { code } = (await res.json()) as { code: string };
    await gateway.stop();

    gateway = await startActivationGateway({ dataDir, masterKey });
    const first = await agent(gateway, machine, { command: 'maintenance', task: 'synctime' }, { password: code });
    assert.equal(first.outcome, 'success', first.message);
    const again = await agent(gateway, machine, { command: 'maintenance', task: 'synctime' }, { password: code });
    assert.equal(again.outcome, 'error');
    assert.match(again.message, /does not match/);
  });
});
