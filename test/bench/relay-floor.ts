/**
 * Floors of a relay on this machine, for the redirection benchmark: a bare proxy in a process of its
 * own between the viewer and the device. `node`: a Node process that only pipes each TCP connection
 * (fixtures/tcp-pipe-proxy.mjs): what Node's sockets cost a relay, one copy in and one out of user
 * space. `haproxy`: HAProxy in TCP mode (C, `splice` on Linux: no copy through user space), when it
 * is installed. `ws`: the cheapest relay that serves the viewer a WebSocket, as a browser needs, on
 * the mandated stack (Node and `ws`; fixtures/ws-pipe-relay.mjs): one message per device read;
 * `ws-slabs` the same reading the device into reused buffers, as the gateway's KVM relay does. The
 * TCP floors' viewers sign in through them as over TCP, the WebSocket floors' over the WebSocket.
 * The direct way has the device and the viewer in one process; a relay adds a process that must be
 * woken for every request and every frame.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { findHaproxy } from '../haproxy/haproxy-process.js';

const PIPE_PROXY = fileURLToPath(new URL('./fixtures/tcp-pipe-proxy.mjs', import.meta.url));
const WS_PIPE = fileURLToPath(new URL('./fixtures/ws-pipe-relay.mjs', import.meta.url));

export type FloorKind = 'node' | 'haproxy' | 'ws' | 'ws-slabs';

/** What each floor is: its short name in the rounds, what relays, and what the viewer opens to it. */
export const FLOORS: Record<FloorKind, { short: string; name: string; viewer: 'tcp' | 'websocket' }> = {
  node: { short: 'Node pipe', name: 'a Node process piping TCP', viewer: 'tcp' },
  haproxy: { short: 'HAProxy', name: 'HAProxy (TCP mode, splice)', viewer: 'tcp' },
  ws: { short: 'ws pipe', name: 'a Node process relaying a ws WebSocket to TCP, one message per read', viewer: 'websocket' },
  'ws-slabs': { short: 'ws pipe (slabs)', name: 'the same ws relay reading into reused 64 KiB slabs', viewer: 'websocket' },
};

/** The floors this machine can run: the Node TCP pipe, the two ws relays, and HAProxy when installed. */
export const floorKinds = (): FloorKind[] => ['node', 'ws', 'ws-slabs', ...(findHaproxy() ? (['haproxy'] as const) : [])];

export interface RelayFloor {
  kind: FloorKind;
  /** What relays (FLOORS[kind].name). */
  name: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

function haproxyConfig(listen: string, target: string): string {
  return [
    'global',
    '    maxconn 100',
    'defaults',
    '    mode tcp',
    '    timeout connect 5s',
    '    timeout client 60s',
    '    timeout server 60s',
    'frontend viewer',
    `    bind ${listen}`,
    '    default_backend device',
    'backend device',
    `    server device ${target}`,
    '',
  ].join('\n');
}

const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = connect({ host, port });
    probe.once('connect', () => (probe.destroy(), resolve(true)));
    probe.once('error', () => resolve(false));
  });

/** Listens on `host:port` (a loopback address of the benchmark's own) and forwards to `target` (host:port). */
export async function startRelayFloor(kind: FloorKind, dir: string, host: string, port: number, target: { host: string; port: number }): Promise<RelayFloor> {
  const haproxy = kind === 'haproxy' ? findHaproxy() : undefined;
  if (kind === 'haproxy' && !haproxy) throw new Error('haproxy is not installed (apt-get install -y haproxy)');
  const name = FLOORS[kind].name;
  const args = [host, String(port), target.host, String(target.port)];
  let child: ChildProcess;
  if (haproxy) {
    const file = join(dir, 'relay-floor-haproxy.cfg');
    await writeFile(file, haproxyConfig(`${host}:${port}`, `${target.host}:${target.port}`));
    child = spawn(haproxy, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  } else if (kind === 'node') {
    child = spawn(process.execPath, [PIPE_PROXY, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  } else {
    child = spawn(process.execPath, [WS_PIPE, ...args, ...(kind === 'ws-slabs' ? ['slabs'] : [])], { stdio: ['ignore', 'ignore', 'pipe'] });
  }
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(host, port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the relay floor (${name}) did not listen on ${host}:${port}: ${output}`);
    }
    await sleep(50);
  }
  return {
    kind,
    name,
    pid: child.pid,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
