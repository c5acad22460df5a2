import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:tls';
import { createServer, type AddressInfo } from 'node:net';
import { loadConfig } from '../../../core/config/load-config.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { RawDevice, uuidOf } from './cira-test-kit.js';
import { ciraPort } from './gateway-cira-helpers.js';
import { until } from '../../helpers/poll.js';

const PASSWORD = 'device-mps-secret-9';

describe('cira plugin routes: accounts, connections, certificate', () => {
  let gw: TestGateway;
  let admin: string;
  let port: number;
  const logs: string[] = [];

  before(async () => {
    gw = await startTestGateway({ plugins: ['rest-api', 'cira'], overrides: { plugins: { cira: { enable: true, options: { port: 0, forwardSettleMs: 20 } } } }, logs });
    admin = await gw.login();
    port = ciraPort(logs);
  });
  after(() => gw.cleanup());

  it('stores an MPS account whose password is never returned, logged or stored in the clear', async () => {
    const created = await gw.request('POST', '/api/cira/accounts', { token: admin, body: { username: 'mps-site', password: PASSWORD } });
    assert.equal(created.status, 201);
    const body = await created.text();
    const account = JSON.parse(body) as { id: string; username: string; createdAt: string };
    assert.deepEqual(Object.keys(account).sort(), ['createdAt', 'id', 'username']);
    const list = await gw.request('GET', '/api/cira/accounts', { token: admin });
    const listed = await list.text();
    assert.deepEqual((JSON.parse(listed) as Array<{ id: string }>).map((a) => a.id), [account.id]);
    for (const text of [body, listed, logs.join('\n')]) assert.ok(!text.includes(PASSWORD));
    const dbDir = join(gw.dataDir, 'db');
    for (const file of await readdir(dbDir)) {
      const bytes = await readFile(join(dbDir, file));
      assert.ok(!bytes.includes(Buffer.from(PASSWORD)), `${file} does not hold the password in the clear`);
    }
    assert.equal((await gw.request('POST', '/api/cira/accounts', { token: admin, body: { username: 'mps-site', password: 'other-password' } })).status, 409);
    assert.equal((await gw.request('POST', '/api/cira/accounts', { token: admin, body: { username: 'x', password: 'long-enough', extra: 1 } })).status, 400);
  });

  it('checks the plugin permissions: cira:read lists, cira:manage changes', async () => {
    const reader = await gw.userWith(['cira:read']);
    assert.equal((await gw.request('GET', '/api/cira/accounts', { token: reader })).status, 200);
    assert.equal((await gw.request('GET', '/api/cira/connections', { token: reader })).status, 200);
    assert.equal((await gw.request('POST', '/api/cira/accounts', { token: reader, body: { username: 'u2', password: 'password-22' } })).status, 403);
    assert.equal((await gw.request('DELETE', '/api/cira/connections/whatever', { token: reader })).status, 403);
    const nobody = await gw.userWith([]);
    assert.equal((await gw.request('GET', '/api/cira/certificate', { token: nobody })).status, 403);
  });

  it('lists a device that signed in with a stored account and drops it on DELETE', async () => {
    const device = await RawDevice.connect(port, '127.0.23.1');
    await device.handshake(uuidOf(301), [16993, 16992], 'mps-site', PASSWORD);
    const listed = await until('the tunnel listed', async () => {
      const res = await gw.request('GET', '/api/cira/connections', { token: admin });
      const list = (await res.json()) as Array<Record<string, unknown>>;
      assert.equal(res.headers.get('x-total-count'), String(list.length));
      return list.length === 1 ? list[0] : undefined;
    }, 3000);
    const deviceId = listed['deviceId'] as string;
    assert.equal(typeof deviceId, 'string');
    assert.equal(listed['uuid'], uuidOf(301));
    assert.equal(listed['remoteAddress'], '127.0.23.1');
    assert.deepEqual((listed['forwardedPorts'] as number[]).sort(), [16992, 16993]);
    // The integration may already be reading the device through a channel this raw device never answers.
    assert.equal(typeof listed['openChannels'], 'number');
    assert.ok(!Number.isNaN(Date.parse(listed['connectedAt'] as string)));

    assert.equal((await gw.request('DELETE', `/api/cira/connections/${deviceId}`, { token: admin })).status, 204);
    assert.equal((await device.next((m) => m.type === 'disconnect'))?.type, 'disconnect');
    await device.closed;
    assert.deepEqual(await (await gw.request('GET', '/api/cira/connections', { token: admin })).json(), []);
    assert.equal((await gw.request('DELETE', `/api/cira/connections/${deviceId}`, { token: admin })).status, 404);
  });

  it('documents its routes and schemas in the OpenAPI document, the password write-only', async () => {
    const doc = (await (await gw.request('GET', '/swagger/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    for (const path of ['/api/cira/accounts', '/api/cira/accounts/{id}', '/api/cira/connections', '/api/cira/connections/{deviceId}', '/api/cira/certificate']) {
      assert.ok(doc.paths[path], `${path} documented`);
    }
    assert.deepEqual(Object.keys(doc.paths['/api/cira/accounts']!).sort(), ['get', 'post']);
    assert.ok(doc.components.schemas['CiraConnection'] && doc.components.schemas['CiraCertificate']);
    assert.equal(doc.components.schemas['MpsAccount']!.properties!['password'], undefined);
  });

  it('refuses a device whose account was deleted', async () => {
    const accounts = (await (await gw.request('GET', '/api/cira/accounts', { token: admin })).json()) as Array<{ id: string }>;
    assert.equal((await gw.request('DELETE', `/api/cira/accounts/${accounts[0]!.id}`, { token: admin })).status, 204);
    assert.equal((await gw.request('DELETE', `/api/cira/accounts/${accounts[0]!.id}`, { token: admin })).status, 404);
    const device = await RawDevice.connect(port, '127.0.23.2');
    assert.equal((await device.signIn(uuidOf(302), 'mps-site', PASSWORD))?.type, 'userauth-failure');
    await device.closed;
  });
});

describe('cira plugin: configuration and certificate', () => {
  it('AMTGW_CIRA_PORT, which the plugin declares, moves its TLS listener without enabling the plugin', async () => {
    const free = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const logs: string[] = [];
    const gw = await startTestGateway({ plugins: ['rest-api', 'cira'], env: { AMTGW_CIRA_PORT: String(free) }, logs });
    try {
      assert.equal(ciraPort(logs), free);
    } finally {
      await gw.cleanup();
    }
    assert.equal(loadConfig({ env: { AMTGW_CIRA_PORT: '4555' } }).plugins['cira']!.enable, false);
  });

  it('generates a self-signed pair with an owner-only key at first start, serves it, and keeps it across restarts', async () => {
    const logs: string[] = [];
    const gw = await startTestGateway({ plugins: ['rest-api', 'cira'], overrides: { plugins: { cira: { enable: true, options: { port: 0 } } } }, logs });
    try {
      const admin = await gw.login();
      const cert = (await (await gw.request('GET', '/api/cira/certificate', { token: admin })).json()) as { pem: string; sha256: string };
      assert.match(cert.sha256, /^[0-9a-f]{64}$/);
      assert.equal(new X509Certificate(cert.pem).fingerprint256.replace(/:/g, '').toLowerCase(), cert.sha256);
      const keyMode = (await stat(join(gw.dataDir, 'cira', 'server.key.pem'))).mode & 0o777;
      assert.equal(keyMode, 0o600);
      const seen = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: ciraPort(logs), rejectUnauthorized: false }, () => {
          resolve(socket.getPeerX509Certificate()!.fingerprint256);
          socket.destroy();
        });
        socket.once('error', reject);
      });
      assert.equal(seen.replace(/:/g, '').toLowerCase(), cert.sha256, 'the listener presents the certificate the API gives');
      await gw.stop();
      const again = await startTestGateway({ plugins: ['rest-api', 'cira'], dataDir: gw.dataDir, masterKey: gw.masterKey, overrides: { plugins: { cira: { enable: true, options: { port: 0 } } } } });
      try {
        const token = await again.login();
        const cert2 = (await (await again.request('GET', '/api/cira/certificate', { token })).json()) as { sha256: string };
        assert.equal(cert2.sha256, cert.sha256);
      } finally {
        await again.stop();
      }
    } finally {
      await gw.cleanup();
    }
  });
});
