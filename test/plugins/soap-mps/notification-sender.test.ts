import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../../core/log/logger.js';
import { createDeliveryPolicy, DEFAULT_ALLOWED_NETWORKS } from '../../../plugins/soap-mps/delivery-policy.js';
import { createNotificationSender } from '../../../plugins/soap-mps/notification-sender.js';
import { until } from '../../helpers/poll.js';


const policy = createDeliveryPolicy({ allowedNetworks: DEFAULT_ALLOWED_NETWORKS, allowedHosts: [] });

describe('notification sender', () => {
  test('keeps at most maxPending notifications queued per receiver, dropping the oldest, and keeps order', async () => {
    const bodies: string[] = [];
    const held: ServerResponse[] = [];
    let hold = true;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        bodies.push(body);
        if (hold) held.push(res);
        else res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const lines: string[] = [];
    const sender = createNotificationSender({ timeoutMs: 10_000, maxAttempts: 1, backoffMs: 10, maxPending: 2, policy, logger: createLogger({ level: 'warn', write: (l) => lines.push(l) }) });
    try {
      sender.send([url], { body: 'n1', soapAction: 'a' });
      await until('condition', () => bodies.length === 1);
      for (const n of ['n2', 'n3', 'n4', 'n5']) sender.send([url], { body: n, soapAction: 'a' });
      assert.equal(sender.pending(), 3, 'one in flight, two queued');
      assert.equal(lines.filter((l) => l.includes('oldest notification dropped')).length, 2);
      hold = false;
      held.splice(0).forEach((res) => res.end());
      await until('condition', () => bodies.length === 3);
      assert.deepEqual(bodies, ['n1', 'n4', 'n5']);
      await until('condition', () => sender.pending() === 0);
    } finally {
      await sender.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('close stops retries and in-flight deliveries at once', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const sender = createNotificationSender({ timeoutMs: 60_000, maxAttempts: 10, backoffMs: 60_000, maxPending: 5, policy, logger: createLogger({ level: 'silent' }) });
    sender.send([url, 'http://127.0.0.1:9/refused'], { body: 'x', soapAction: 'a' });
    await sleep(100);
    assert.equal(sender.pending(), 2);
    await sender.close();
    assert.equal(sender.pending(), 0);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});
