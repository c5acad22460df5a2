/**
 * Where notifications may go: the policy on its own, and the sender connecting only to addresses
 * it allows. Every socket here is on loopback: 127.0.0.1 is allowed, 127.0.0.2 is the "internal
 * host" outside a narrowed list, and host names resolve through an injected resolver.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../../core/log/logger.js';
import { createDeliveryPolicy, DEFAULT_ALLOWED_NETWORKS, DeliveryRefused, unmapped } from '../../../plugins/soap-mps/delivery-policy.js';
import { ownListenerMatcher } from '../../../plugins/soap-mps/own-listeners.js';
import { createNotificationSender } from '../../../plugins/soap-mps/notification-sender.js';
import { until } from '../../helpers/poll.js';


const v4 = (address: string): LookupAddress => ({ address, family: 4 });

interface CountingServer {
  server: Server;
  /** TCP connections accepted. */
  connections: number;
  /** Request bodies received. */
  bodies: string[];
  close(): Promise<void>;
}

async function countingServer(host: string, port = 0): Promise<CountingServer> {
  const counting: CountingServer = {
    server: createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      // Connection: close, so that each delivery connects (and is checked) anew.
      req.on('end', () => {
        counting.bodies.push(body);
        res.setHeader('connection', 'close');
        res.end();
      });
    }),
    connections: 0,
    bodies: [],
    async close() {
      this.server.closeAllConnections();
      await new Promise((resolve) => this.server.close(resolve));
    },
  };
  counting.server.on('connection', () => counting.connections++);
  await new Promise<void>((resolve) => counting.server.listen(port, host, resolve));
  return counting;
}

describe('the delivery policy', () => {
  // No socket is opened in this block: the policy decides on the address alone.
  test('link-local, unspecified and multicast addresses are refused even when the allowed networks cover everything', () => {
    const policy = createDeliveryPolicy({ allowedNetworks: ['0.0.0.0/0', '::/0'], allowedHosts: ['*.example.test'] });
    for (const address of ['169.254.169.254', '169.254.0.1', 'fe80::1', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '0.0.0.0', '::', '224.0.0.1', 'ff02::1']) {
      assert.match(policy.refusal('10.1.2.3', address) ?? '', /never notification receivers/, address);
      assert.match(policy.refusal('metadata.example.test', address) ?? '', /never notification receivers/, `${address} through an allowed name`);
    }
    assert.equal(policy.refusal('10.1.2.3', '10.1.2.3'), null);
  });

  test('the default networks are loopback and the private ranges', () => {
    const policy = createDeliveryPolicy({ allowedNetworks: DEFAULT_ALLOWED_NETWORKS, allowedHosts: [] });
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '10.0.0.7', '172.16.0.1', '172.31.255.254', '192.168.1.1', 'fd00::5', '::ffff:127.0.0.1']) {
      assert.equal(policy.refusal(address, address), null, address);
    }
    for (const address of ['172.32.0.1', '192.169.0.1', '11.0.0.1', '2001:db8::1', '::ffff:8.8.8.8']) {
      assert.match(policy.refusal(address, address) ?? '', /not in the networks notifications may reach/, address);
    }
    assert.equal(unmapped('::ffff:7f00:2'), '127.0.0.2');
  });

  test('a name is allowed when it resolves to an allowed address, or is listed in allowedHosts', async () => {
    const answers: Record<string, LookupAddress[]> = { 'inside.test': [v4('127.0.0.2'), v4('127.0.0.1')], 'outside.test': [v4('127.0.0.2')], 'listed.example.test': [v4('127.0.0.2')] };
    const policy = createDeliveryPolicy({
      allowedNetworks: ['127.0.0.1/32'],
      allowedHosts: ['*.example.test'],
      resolve: async (host) => answers[host] ?? Promise.reject(new Error('ENOTFOUND')),
    });
    assert.deepEqual(await policy.addresses('inside.test'), [v4('127.0.0.1')], 'only the allowed address is kept');
    assert.deepEqual(await policy.addresses('listed.example.test'), [v4('127.0.0.2')]);
    const refused = /does not resolve to an address notifications may reach/;
    await assert.rejects(policy.addresses('outside.test'), (err) => err instanceof DeliveryRefused && refused.test(err.message));
    await assert.rejects(policy.addresses('unknown.test'), refused, 'unresolvable names get the same answer');
    await assert.rejects(policy.addresses('127.0.0.2'), /host 127.0.0.2: not in the networks/);
    await assert.rejects(policy.addresses('[::ffff:127.0.0.2]'), /host ::ffff:127.0.0.2: not in the networks/);
  });

  test('a resolver that never answers is given up after the timeout', async () => {
    const policy = createDeliveryPolicy({ allowedNetworks: ['127.0.0.1/32'], allowedHosts: [], resolve: () => new Promise(() => undefined), resolveTimeoutMs: 50 });
    await assert.rejects(policy.addresses('slow.test'), DeliveryRefused);
  });

  test('an invalid network is a start-up error naming the setting', () => {
    assert.throws(() => createDeliveryPolicy({ allowedNetworks: ['10.0.0.0/40'], allowedHosts: [] }), /notifications.allowedNetworks entry '10.0.0.0\/40'/);
  });
});

describe('the sender connects only where the policy allows, checked when each delivery connects', () => {
  const logs: string[] = [];
  const make = (answers: Map<string, LookupAddress[]>, onResolve?: (host: string) => void, ownListener?: (address: string, port: number) => boolean) =>
    createNotificationSender({
      timeoutMs: 5000,
      maxAttempts: 3,
      backoffMs: 10,
      maxPending: 10,
      policy: createDeliveryPolicy({ allowedNetworks: ['127.0.0.1/32'], allowedHosts: [], resolve: async (host) => (onResolve?.(host), answers.get(host) ?? []), ...(ownListener ? { ownListener } : {}) }),
      logger: createLogger({ level: 'warn', write: (line) => logs.push(line) }),
    });

  test('a name resolving to a refused address, or a refused literal address, is never connected to; a mixed answer connects to the allowed address', async () => {
    const allowed = await countingServer('127.0.0.1');
    const port = (allowed.server.address() as AddressInfo).port;
    const internal = await countingServer('127.0.0.2', port);
    const answers = new Map([
      ['internal.test', [v4('127.0.0.2')]],
      ['mixed.test', [v4('127.0.0.2'), v4('127.0.0.1')]],
    ]);
    const sender = make(answers);
    logs.length = 0;
    try {
      sender.send([`http://internal.test:${port}/n`, `http://127.0.0.2:${port}/n`, `http://[::ffff:127.0.0.2]:${port}/n`, `http://mixed.test:${port}/n`], { body: 'event', soapAction: 'a' });
      await until('condition', () => sender.pending() === 0);
      assert.equal(internal.connections, 0, 'nothing connected to the refused address');
      assert.deepEqual(internal.bodies, []);
      assert.equal(allowed.connections, 1);
      assert.deepEqual(allowed.bodies, ['event'], 'the mixed answer was delivered to its allowed address');
      const refusals = logs.map((l) => JSON.parse(l) as { msg: string; receiver: string; reason: string }).filter((l) => l.msg === 'notification not sent: the receiver is not allowed');
      assert.deepEqual(refusals.map((l) => l.receiver).sort(), [`http://127.0.0.2:${port}`, `http://[::ffff:7f00:2]:${port}`, `http://internal.test:${port}`].sort(), 'each refused once, not retried');
    } finally {
      await sender.close();
      await allowed.close();
      await internal.close();
    }
  });

  test('a name that does not resolve yet is retried like a connection failure, and delivered once it resolves', async () => {
    const allowed = await countingServer('127.0.0.1');
    const port = (allowed.server.address() as AddressInfo).port;
    const answers = new Map<string, LookupAddress[]>();
    let lookups = 0;
    // The first lookup finds nothing; the name resolves from the second on.
    const sender = make(answers, () => {
      if (++lookups === 2) answers.set('late.test', [v4('127.0.0.1')]);
    });
    try {
      sender.send([`http://late.test:${port}/n`], { body: 'event', soapAction: 'a' });
      await until('condition', () => sender.pending() === 0);
      assert.deepEqual(allowed.bodies, ['event']);
      assert.equal(lookups, 2);
    } finally {
      await sender.close();
      await allowed.close();
    }
  });

  test("a name that resolves to one of the gateway's own listeners is never connected to; the same address on another port is", async () => {
    const own = await countingServer('127.0.0.1');
    const ownPort = (own.server.address() as AddressInfo).port;
    const other = await countingServer('127.0.0.1');
    const otherPort = (other.server.address() as AddressInfo).port;
    const sender = make(new Map([['self.test', [v4('127.0.0.1')]]]), undefined, ownListenerMatcher(() => [{ host: '0.0.0.0', port: ownPort }]));
    try {
      sender.send([`http://self.test:${ownPort}/n`, `http://127.0.0.1:${ownPort}/n`, `http://self.test:${otherPort}/n`], { body: 'event', soapAction: 'a' });
      await until('condition', () => sender.pending() === 0);
      assert.equal(own.connections, 0, 'the own listener was never connected to');
      assert.deepEqual(other.bodies, ['event']);
    } finally {
      await sender.close();
      await own.close();
      await other.close();
    }
  });

  test('a name that resolved to an allowed address and now resolves to a refused one gets no further delivery', async () => {
    const allowed = await countingServer('127.0.0.1');
    const port = (allowed.server.address() as AddressInfo).port;
    const internal = await countingServer('127.0.0.2', port);
    const answers = new Map([['receiver.test', [v4('127.0.0.1')]]]);
    const sender = make(answers);
    try {
      sender.send([`http://receiver.test:${port}/n`], { body: 'first', soapAction: 'a' });
      await until('condition', () => sender.pending() === 0);
      assert.deepEqual(allowed.bodies, ['first']);
      answers.set('receiver.test', [v4('127.0.0.2')]);
      sender.send([`http://receiver.test:${port}/n`], { body: 'second', soapAction: 'a' });
      await until('condition', () => sender.pending() === 0);
      assert.equal(internal.connections, 0);
      assert.deepEqual(allowed.bodies, ['first']);
    } finally {
      await sender.close();
      await allowed.close();
      await internal.close();
    }
  });
});
