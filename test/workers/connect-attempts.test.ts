/**
 * Connect attempts on libuv's TCP handles, and the same interface on net.Socket: each reports
 * accepted, refused or failed once, never after it was closed, and a closed attempt's connection is
 * gone from the peer's side. Against real listeners on loopback.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createConnector, socketConnector, type ConnectOutcome, type Connector } from '../../workers/amt/connect-attempts.js';

interface Outcome {
  tag: string;
  error: string | undefined;
}

function collecting(make: <T>(outcome: ConnectOutcome<T>) => Connector<T>): { connector: Connector<string>; outcomes: Outcome[]; next(): Promise<Outcome> } {
  const outcomes: Outcome[] = [];
  const waiters: Array<(o: Outcome) => void> = [];
  const connector = make<string>((tag, error) => {
    const outcome = { tag, error };
    outcomes.push(outcome);
    waiters.shift()?.(outcome);
  });
  return { connector, outcomes, next: () => new Promise((resolve) => waiters.push(resolve)) };
}

interface Listener {
  port: number;
  accepted: Socket[];
  stop(): Promise<void>;
}

async function listen(host: string): Promise<Listener> {
  const accepted: Socket[] = [];
  const server: Server = createServer((socket) => accepted.push(socket));
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  const stop = async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return { port: (server.address() as { port: number }).port, accepted, stop };
}

describe('connect attempts', () => {
  let open: Listener;
  let refusingPort: number;
  before(async () => {
    open = await listen('127.0.0.1');
    const closed = await listen('127.0.0.1');
    refusingPort = closed.port;
    await closed.stop();
  });
  after(() => open.stop());

  it('run on libuv TCP handles on this Node', () => {
    assert.equal(createConnector(() => undefined).kind, 'handle');
  });

  for (const [name, make] of [
    ['handles', createConnector],
    ['net.Socket', socketConnector],
  ] as const) {
    describe(`on ${name}`, () => {
      it('reports an accepted connection, a refusal and an unusable address once each, with their tags', async () => {
        const { connector, outcomes, next } = collecting(make);
        const attempts = [connector.connect('127.0.0.1', open.port, 'open')];
        assert.deepEqual(await next(), { tag: 'open', error: undefined });
        attempts.push(connector.connect('127.0.0.1', refusingPort, 'refused'));
        assert.deepEqual(await next(), { tag: 'refused', error: 'ECONNREFUSED' });
        // Not an address at all: reported as a failure, not thrown.
        attempts.push(connector.connect('127.0.0.256', open.port, 'bad'));
        const bad = await next();
        assert.equal(bad.tag, 'bad');
        assert.equal(typeof bad.error, 'string');
        // Nor a port (the TCP binding would abort the process on it).
        attempts.push(connector.connect('127.0.0.1', -1, 'bad-port'));
        const badPort = await next();
        assert.equal(badPort.tag, 'bad-port');
        assert.equal(typeof badPort.error, 'string');
        await sleep(50);
        assert.equal(outcomes.length, 4, 'nothing reported twice');
        for (const attempt of attempts) attempt.close();
      });

      it('releases the connection when closed, and reports nothing after', async () => {
        const { connector, outcomes, next } = collecting(make);
        const attempt = connector.connect('127.0.0.1', open.port, 'kept');
        await next();
        const peer = open.accepted.at(-1)!;
        const peerClosed = new Promise((resolve) => peer.once('close', resolve).resume());
        attempt.close();
        await peerClosed;
        // Closed before its outcome: silent, and its socket released all the same.
        const early = connector.connect('127.0.0.1', open.port, 'closed-early');
        early.close();
        early.close();
        await sleep(100);
        assert.deepEqual(
          outcomes.map((o) => o.tag),
          ['kept'],
        );
      });

      it('connects to IPv6 literals', async (t) => {
        const six = await listen('::1').catch(() => null);
        if (!six) return t.skip('no IPv6 loopback here');
        try {
          const { connector, next } = collecting(make);
          const attempt = connector.connect('::1', six.port, 'six');
          assert.deepEqual(await next(), { tag: 'six', error: undefined });
          attempt.close();
        } finally {
          await six.stop();
        }
      });
    });
  }
});
