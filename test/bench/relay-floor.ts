/**
 * Floors of a relay on this machine, for the redirection benchmark: a bare TCP proxy in a process of
 * its own between the viewer and the device. `node`: a Node process that only pipes each connection
 * (fixtures/tcp-pipe-proxy.mjs): what Node's sockets cost a relay, one copy in and one out of user
 * space. `haproxy`: HAProxy in TCP mode (C, `splice` on Linux: no copy through user space), when it
 * is installed. The direct way has the device and the viewer in one process; a relay adds a process
 * that must be woken for every request and every frame.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { findHaproxy } from '../haproxy/haproxy-process.js';

const PIPE_PROXY = fileURLToPath(new URL('./fixtures/tcp-pipe-proxy.mjs', import.meta.url));

export type FloorKind = 'node' | 'haproxy';

/** The floors this machine can run: the Node pipe, and HAProxy when installed. */
export const floorKinds = (): FloorKind[] => (findHaproxy() ? ['node', 'haproxy'] : ['node']);

export interface RelayFloor {
  kind: FloorKind;
  /** What relays: "HAProxy (TCP mode, splice)" or "a Node process piping the sockets". */
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
  let child: ChildProcess;
  let name: string;
  if (haproxy) {
    const file = join(dir, 'relay-floor-haproxy.cfg');
    await writeFile(file, haproxyConfig(`${host}:${port}`, `${target.host}:${target.port}`));
    child = spawn(haproxy, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    name = 'HAProxy (TCP mode, splice)';
  } else {
    child = spawn(process.execPath, [PIPE_PROXY, host, String(port), target.host, String(target.port)], { stdio: ['ignore', 'ignore', 'pipe'] });
    name = 'a Node process piping the sockets';
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
