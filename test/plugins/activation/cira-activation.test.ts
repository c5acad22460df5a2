/**
 * Client control mode with CIRA: the machine is told to dial this gateway (its CIRA certificate as
 * trusted root, an MPS entry, a generated account for its UUID, periodic and user-initiated rules,
 * environment detection), then dials from exactly what was written, and is managed through its tunnel.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { SimMachine } from '../../sim/activation/sim-machine.js';
import { until } from '../../helpers/poll.js';
import { agent, callsOf, createProfile, startActivationGateway, startMachine, type ActivationGateway } from './activation-kit.js';

interface Tunnel {
  deviceId: string;
  uuid: string;
  username: string;
  identity: string;
  verified: boolean;
}

describe('client control mode activation with CIRA', () => {
  let gateway: ActivationGateway;
  let machine: SimMachine;
  let answered = 0;

  before(async () => {
    gateway = await startActivationGateway({ cira: true, plugins: ['power-mgmt'] });
    await createProfile(gateway, { name: 'ccm-cira', mode: 'ccm', connection: 'cira' });
    // Its network's suffix listed as "inside" from the factory: only the detection strings the gateway writes make it dial.
    machine = await startMachine(0, { dnsSuffix: 'corp.example', detectionStrings: ['corp.example'], ciraReconnectMs: 500 }, 1);
  });
  after(async () => {
    await machine?.stop();
    await gateway?.stop();
  });

  test('activates and reports CIRA configured', async () => {
    const result = await agent(gateway, machine, { command: 'activate', profile: 'ccm-cira' });
    assert.equal(result.outcome, 'success', result.message);
    assert.equal(result.status?.['CIRAConnection'], 'Configured');
    assert.deepEqual(machine.firmware.refusals, []);
    answered = callsOf(machine);
  });

  test('writes what the machine needs to dial this gateway, and nothing the cira plugin does not know', async () => {
    const { cira } = machine.firmware;
    const certificate = await gateway.get<{ pem: string; sha256: string }>('/api/cira/certificate');
    assert.equal(cira.trustedRoots.length, 1);
    assert.equal(cira.trustedRoots[0]!.fingerprint256.replace(/:/g, '').toLowerCase(), certificate.sha256);
    assert.equal(cira.servers.length, 1);
    const server = cira.servers[0]!;
    assert.equal(server.accessInfo, '127.0.0.1');
    assert.equal(server.infoFormat, 3);
    assert.equal(server.port, gateway.ciraPort);
    assert.equal(server.commonName, 'amt-gateway-cira');
    assert.deepEqual(cira.rules.map((r) => r.name).sort(), ['Periodic', 'User Initiated']);
    assert.equal(cira.userInitiated, 32771);
    assert.equal(cira.detectionStrings.length, 1);
    assert.ok(cira.detectionStrings[0]!.endsWith('.invalid'));
    const accounts = await gateway.get<Array<{ username: string; uuids?: string[] }>>('/api/cira/accounts');
    assert.deepEqual(accounts.map((a) => [a.username, a.uuids]), [[server.username, [machine.uuid]]], 'one account, for this UUID alone');
  });

  test('makes fewer WS-Management requests than RPS does for the same profile (40)', () => {
    // GeneralSettings (challenged once), Setup, the two feature reads, then seven for CIRA.
    assert.equal(answered, 12);
  });

  test('the machine dials in with those settings, and its tunnel is trusted as provisioned', async () => {
    const tunnel = await until('the tunnel', async () => (await gateway.get<Tunnel[]>('/api/cira/connections')).find((t) => t.uuid === machine.uuid));
    assert.equal(tunnel.identity, 'provisioned');
    assert.equal(tunnel.verified, true);
    assert.equal(tunnel.username, machine.firmware.cira.servers[0]!.username);
  });

  test('the device is managed through its tunnel with its own password', async () => {
    const devices = await gateway.get<Array<{ id: string; uuid: string; connections: string[] }>>('/api/devices');
    const device = devices.find((d) => d.uuid === machine.uuid)!;
    await until('cira in the device\'s connections', async () => (await gateway.get<Array<{ uuid: string; connections: string[] }>>('/api/devices')).find((d) => d.uuid === machine.uuid)?.connections.includes('cira'));
    const res = await gateway.send('GET', `/api/power/${device.id}`);
    assert.equal(res.status, 200, await res.clone().text());
  });
});
