/**
 * An answer that closes its connection (as every AMT 401 does): the transport reads it whole, the
 * next request opens a new connection, and the error undici destroys the closed socket with carries
 * no captured stack (Node formats it, nobody reads it), while stacks elsewhere are left as they were.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createDeviceTransport } from '../../workers/amt/http-transport.js';

const TIMEOUTS = { connectMs: 2000, firstByteMs: 2000, totalMs: 4000 };

describe('a response with Connection: close', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  before(async () => {
    server = createServer((req, res) => {
      const close = !req.headers['authorization'];
      res.writeHead(close ? 401 : 200, { 'content-type': 'text/plain', ...(close ? { connection: 'close' } : {}) });
      res.end(close ? 'sign in' : 'ok');
    });
    server.on('connection', () => connections++);
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('is read whole, the next request reconnects, and the closing error has no stack frames', async () => {
    const stackFrames = new Map<string, number[]>();
    const previous = Error.prepareStackTrace;
    Error.prepareStackTrace = (error, frames) => {
      const name = (error as Error).name;
      stackFrames.set(name, [...(stackFrames.get(name) ?? []), frames.length]);
      return `${name}: ${(error as Error).message}`;
    };
    const limit = Error.stackTraceLimit;
    const transport = createDeviceTransport({ host: '127.0.0.1', port, tls: false, timeouts: TIMEOUTS, maxResponseBytes: 1 << 16 });
    try {
      const first = await transport.request('POST', '/wsman', {}, 'x');
      assert.equal(first.status, 401);
      assert.equal(first.body, 'sign in');
      assert.equal(Error.stackTraceLimit, limit, 'stack traces are back by the time the caller runs');
      assert.ok(new Error('after').stack, 'errors made by the caller keep their stack');
      const second = await transport.request('POST', '/wsman', { authorization: 'Digest x' }, 'x');
      assert.equal(second.status, 200);
      assert.equal(second.body, 'ok');
      assert.equal(connections, 2);
      assert.deepEqual(stackFrames.get('InformationalError'), [0], 'the socket was destroyed with an error that captured no frames');
    } finally {
      Error.prepareStackTrace = previous;
      await transport.close();
    }
    assert.equal(Error.stackTraceLimit, limit);
  });
});
