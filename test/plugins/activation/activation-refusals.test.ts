/**
 * What the activation endpoint and routes refuse: agents from outside the allowed networks, more
 * agents than the bounds, messages rpc-go would not send (a protocol version it does not speak, no
 * profile, not JSON, binary), a silent agent, a profile that does not exist, firmware that wants TLS
 * locally; profiles firmware could not take; users without the permission. None of it touches the firmware.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import type { SimMachine } from '../../sim/activation/sim-machine.js';
import { agent, callsOf, createProfile, startActivationGateway, startMachine, type ActivationGateway } from './activation-kit.js';

/** The messages a raw WebSocket client receives until the server closes it. */
function rawSession(url: string, localAddress: string, send: Array<string | Buffer>): Promise<Array<{ method: string; message: string }>> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { localAddress });
    const received: Array<{ method: string; message: string }> = [];
    ws.on('open', () => send.forEach((m) => ws.send(m)));
    ws.on('message', (data) => received.push(JSON.parse(String(data)) as { method: string; message: string }));
    ws.on('error', () => undefined);
    ws.once('close', () => resolve(received));
  });
}

describe('activation refusals', () => {
  let gateway: ActivationGateway;
  let machine: SimMachine;

  before(async () => {
    gateway = await startActivationGateway({ options: { allowedNetworks: ['127.77.5.0/24'], maxSessionsPerAddress: 1, helloTimeoutMs: 300 } });
    await createProfile(gateway, { name: 'ccm', mode: 'ccm' });
    machine = await startMachine(0, {}, 5);
  });
  after(async () => {
    await machine?.stop();
    await gateway?.stop();
  });

  test('refuses agents from outside its allowed networks before the WebSocket opens (403)', async () => {
    const outsider = await startMachine(0, {}, 6);
    try {
      const result = await agent(gateway, outsider, { command: 'activate', profile: 'ccm' });
      assert.equal(result.refusedStatus, 403);
      assert.equal(callsOf(outsider), 0);
    } finally {
      await outsider.stop();
    }
  });

  test('refuses a second connection from one address beyond the bound (503)', async () => {
    const holder = new WebSocket(gateway.url, { localAddress: '127.77.5.9' });
    await new Promise((resolve) => holder.once('open', resolve));
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(gateway.url, { localAddress: '127.77.5.9' });
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('open', () => resolve(101));
      ws.on('error', () => undefined);
    });
    holder.terminate();
    assert.equal(status, 503);
  });

  test('ends a silent agent after the hello timeout, telling it why', async () => {
    const received = await rawSession(gateway.url, '127.77.5.10', []);
    assert.equal(received.at(-1)?.method, 'error');
    assert.match(received.at(-1)!.message, /did not answer with its first message/);
  });

  test('refuses what rpc-go would not send, naming what is wrong and never echoing a value', async () => {
    const hello = (fields: Record<string, unknown>) =>
      JSON.stringify({ method: 'activate --profile ccm', apiKey: 'key', appVersion: 'x', protocolVersion: '4.0.0', status: 'ok', message: 'ok', tenantId: '', payload: Buffer.from(JSON.stringify({ client: 'RPC', ver: '16.1.27', build: '2225', uuid: machine.uuid, currentMode: 0, password: 'Secret-1' })).toString('base64'), ...fields });
    const cases: Array<[string | Buffer, RegExp]> = [
      [hello({ protocolVersion: '5.0.0' }), /protocol version 5.0.0 is not supported/],
      [hello({ method: 'activate' }), /no profile named/],
      [hello({ method: 'dance' }), /not activate, deactivate or maintenance/],
      [hello({ payload: 'not base64!' }), /payload is not base64/],
      ['{not json', /not JSON/],
      [Buffer.from([1, 2, 3]), /binary message/],
      [hello({ payload: Buffer.from(JSON.stringify({ uuid: 'nope', ver: '1' })).toString('base64') }), /uuid is not a UUID/],
    ];
    for (const [message, why] of cases) {
      const received = await rawSession(gateway.url, '127.77.5.11', [message]);
      const last = received.at(-1);
      assert.equal(last?.method, 'error', String(message));
      assert.match(last!.message, why);
      assert.ok(!last!.message.includes('Secret-1'));
    }
    assert.equal(callsOf(machine), 0);
  });

  test('refuses an unknown profile, and a machine that accepts local management only over TLS', async () => {
    const unknown = await agent(gateway, machine, { command: 'activate', profile: 'nope' });
    assert.equal(unknown.outcome, 'error');
    assert.match(unknown.message, /no activation profile 'nope'/);
    const tls = await startMachine(1, { tlsEnforced: true }, 5);
    try {
      const result = await agent(gateway, tls, { command: 'activate', profile: 'ccm' });
      assert.equal(result.outcome, 'error');
      assert.match(result.message, /over TLS only/);
      assert.equal(callsOf(tls), 0);
    } finally {
      await tls.stop();
    }
  });

  test('refuses profiles the firmware could not take, and never returns a password', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ name: 'a', mode: 'ccm', userConsent: 'none' }, 'body.userConsent'],
      [{ name: 'b', mode: 'ccm', password: 'fixed' }, 'body.fixedPassword'],
      [{ name: 'c', mode: 'ccm', password: 'fixed', fixedPassword: 'weakpassword' }, 'body.fixedPassword'],
      [{ name: 'd', mode: 'acm' }, 'body.mebxPassword'],
      [{ name: 'e', mode: 'ccm', mebxPassword: 'Mebx-P@ssw0rd1' }, 'body.mebxPassword'],
      [{ name: 'bad name!', mode: 'ccm' }, 'body.name'],
    ];
    for (const [body, path] of cases) {
      const res = await gateway.send('POST', '/api/activation/profiles', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const problem = (await res.json()) as { errors: Array<{ path: string }> };
      assert.ok(problem.errors.some((e) => e.path === path), `${JSON.stringify(problem.errors)} names ${path}`);
    }
    const res = await gateway.send('POST', '/api/activation/profiles', { name: 'fixed', mode: 'ccm', password: 'fixed', fixedPassword: 'Fixed-P@ssw0rd1' });
    assert.equal(res.status, 201);
    const profile = (await res.json()) as Record<string, unknown>;
    assert.equal(profile['hasFixedPassword'], true);
    assert.ok(!JSON.stringify(profile).includes('Fixed-P@ssw0rd1'));
    assert.match(String((profile['warnings'] as string[])[0]), /same AMT password/);
  });

  test('needs activation:read to read and activation:manage to change', async () => {
    const reader = await gateway.gw.userWith(['activation:read']);
    const nobody = await gateway.gw.userWith([]);
    assert.equal((await gateway.gw.request('GET', '/api/activation/records', { token: nobody })).status, 403);
    assert.equal((await gateway.gw.request('GET', '/api/activation/profiles', { token: reader })).status, 200);
    assert.equal((await gateway.gw.request('POST', '/api/activation/profiles', { token: reader, body: { name: 'x', mode: 'ccm' } })).status, 403);
    assert.equal((await gateway.gw.request('POST', '/api/activation/codes', { token: reader, body: { uuid: machine.uuid } })).status, 403);
  });
});
