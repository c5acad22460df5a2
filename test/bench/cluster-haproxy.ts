/**
 * HAProxy in front of the cluster benchmark's instances: the CIRA part of the shipped
 * config/haproxy-cluster.cfg (TLS terminated with the cluster's certificate, PROXY v2 to each
 * instance, leastconn), on loopback ports, run in the foreground. HAProxy holds two descriptors per
 * tunnel; when `ulimit -Hn` cannot hold them all in one process, several run with the same
 * configuration on ports of their own (as in cira-haproxy-front.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from 'node:net';
import { findHaproxy } from '../haproxy/haproxy-process.js';
import { freePort } from './free-port.js';

const SHIPPED = fileURLToPath(new URL('../../config/haproxy-cluster.cfg', import.meta.url));
const SPARE_DESCRIPTORS = 200;

export interface ClusterHaproxy {
  /** The port devices dial, one per HAProxy process. */
  frontPorts: number[];
  stop(): Promise<void>;
}

function replaceOnce(text: string, pattern: RegExp, by: string, what: string): string {
  if (!pattern.test(text)) throw new Error(`config/haproxy-cluster.cfg: no ${what} to adapt`);
  return text.replace(pattern, by);
}

/** The shipped file with loopback ports, this PEM, these instances' APF ports, no HTTP part. */
function benchConfig(port: number, pem: string, instances: Array<{ apf: number; http: number }>, maxconn: number): string {
  let text = readFileSync(SHIPPED, 'utf8');
  text = replaceOnce(text, /^frontend amt-http$[\s\S]*?(?=^frontend amt-cira$)/m, '', 'HTTP part');
  text = replaceOnce(text, /^ {4}user haproxy\n {4}group haproxy\n/m, '', 'user and group lines');
  text = replaceOnce(text, /^ {4}maxconn 40000$/m, `    maxconn ${maxconn}`, 'maxconn line');
  text = replaceOnce(text, /^ {4}log \/dev\/log local0 notice$/m, '    log stderr format raw local0 notice', 'log line');
  text = replaceOnce(text, /^ {4}bind :4433 ssl crt \/etc\/haproxy\/amt-gateway-cira\.pem$/m, `    bind 127.0.0.1:${port} ssl crt ${pem}`, 'CIRA bind line');
  text = replaceOnce(
    text,
    /^ {4}server gw-1 10\.0\.0\.11:4434 check port 8080\n {4}server gw-2 10\.0\.0\.12:4434 check port 8080\n {4}server gw-3 10\.0\.0\.13:4434 check port 8080$/m,
    instances.map((p, i) => `    server gw-${i + 1} 127.0.0.1:${p.apf} check port ${p.http}`).join('\n'),
    'APF server lines',
  );
  return text;
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

export async function startClusterHaproxy(dir: string, pem: string, instancePorts: Array<{ apf: number; http: number }>, devices: number): Promise<ClusterHaproxy> {
  const binary = findHaproxy();
  if (!binary) throw new Error('haproxy is not installed');
  const limit = Number(/^Max open files\s+\d+\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1] ?? 1_048_576);
  const processes = Math.ceil(devices / Math.floor((limit - SPARE_DESCRIPTORS) / 2));
  const children: ChildProcess[] = [];
  const frontPorts: number[] = [];
  for (let i = 0; i < processes; i++) {
    const port = await freePort();
    const file = join(dir, `haproxy-cluster-${i}.cfg`);
    writeFileSync(file, benchConfig(port, pem, instancePorts, Math.ceil(devices / processes) + 50));
    const check = spawnSync(binary, ['-c', '-f', file], { encoding: 'utf8' });
    if (check.status !== 0) throw new Error(`haproxy -c refused the configuration:\n${check.stdout}${check.stderr}`);
    const child = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(child);
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error('haproxy did not listen');
      await new Promise((r) => setTimeout(r, 50));
    }
    frontPorts.push(port);
  }
  return {
    frontPorts,
    async stop() {
      await Promise.all(
        children.map(async (child) => {
          if (child.exitCode !== null) return;
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          await exited;
        }),
      );
    },
  };
}
