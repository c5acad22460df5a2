/**
 * Runs Debian's `haproxy` for the extra suite with the configuration the project ships
 * (config/haproxy-cira.cfg), changed only where a test must: its own port on loopback, the PEM
 * file, the gateway's socket or port, its connection bound, no privilege drop, logs to stderr. Each change must match
 * the shipped file exactly once, so a reshaped file fails here instead of going untested.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const SHIPPED_CONFIG = fileURLToPath(new URL('../../config/haproxy-cira.cfg', import.meta.url));

/** The haproxy binary: AMTGW_HAPROXY if set, else on PATH, else where Debian installs it (/usr/sbin is not on every PATH). */
export function findHaproxy(): string | undefined {
  const candidates = process.env['AMTGW_HAPROXY'] ? [process.env['AMTGW_HAPROXY']] : ['haproxy', '/usr/sbin/haproxy'];
  for (const candidate of candidates) {
    if (candidate.includes('/')) {
      try {
        accessSync(candidate, constants.X_OK);
        return candidate;
      } catch {
        continue;
      }
    }
    if (spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return undefined;
}

export interface HaproxySetup {
  /** The loopback port HAProxy's CIRA frontend listens on. */
  port: number;
  /** Combined certificate and key. */
  pemFile: string;
  /** Where the backend connects: the gateway's unix socket, or its loopback port. */
  gateway: { path: string } | { port: number };
  /** The bind line's TLS options: the shipped default, or the old-firmware alternative. */
  legacyTls?: boolean;
  /** Connections at once (global maxconn); HAProxy needs two descriptors each, within `ulimit -Hn`. Default 1000. */
  maxconn?: number;
}

function replaceOnce(text: string, pattern: RegExp, replacement: string, what: string): string {
  const matches = text.match(new RegExp(pattern.source, `${pattern.flags.replace('g', '')}g`));
  if (matches?.length !== 1) throw new Error(`config/haproxy-cira.cfg: expected one ${what}, found ${matches?.length ?? 0}`);
  return text.replace(pattern, replacement);
}

/** The shipped configuration with the test's ports and files. */
export function testConfig(setup: HaproxySetup): string {
  let text = readFileSync(SHIPPED_CONFIG, 'utf8');
  const bind = setup.legacyTls
    ? /^ {4}# bind :4433 ssl crt \/etc\/haproxy\/amt-gateway-cira\.pem (ssl-min-ver TLSv1\.0 ciphers DEFAULT:@SECLEVEL=0)$/m
    : /^ {4}bind :4433 ssl crt \/etc\/haproxy\/amt-gateway-cira\.pem$/m;
  if (setup.legacyTls) text = replaceOnce(text, /^ {4}bind :4433 ssl crt \/etc\/haproxy\/amt-gateway-cira\.pem$/m, '', 'default bind line');
  text = replaceOnce(text, bind, `    bind 127.0.0.1:${setup.port} ssl crt ${setup.pemFile}${setup.legacyTls ? ' $1' : ''}`, 'bind line');
  text = replaceOnce(text, /^ {4}server gateway unix@\/run\/amt-gateway\/cira\.sock send-proxy-v2$/m, 'path' in setup.gateway ? `    server gateway unix@${setup.gateway.path} send-proxy-v2` : '', 'unix-socket server line');
  text = replaceOnce(text, /^ {4}# server gateway 127\.0\.0\.1:4434 send-proxy-v2 source (127\.0\.0\.2)$/m, 'port' in setup.gateway ? `    server gateway 127.0.0.1:${setup.gateway.port} send-proxy-v2 source $1` : '', 'loopback server line');
  text = replaceOnce(text, /^ {4}user haproxy\n {4}group haproxy\n/m, '', 'user and group lines');
  text = replaceOnce(text, /^ {4}maxconn 20000$/m, `    maxconn ${setup.maxconn ?? 1000}`, 'maxconn line');
  text = replaceOnce(text, /^ {4}log \/dev\/log local0 notice$/m, '    log stderr format raw local0 notice', 'log line');
  return text;
}

export interface RunningHaproxy {
  readonly pid: number | undefined;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Checks the configuration (`haproxy -c`), starts HAProxy in the foreground and waits for its port. */
export async function startHaproxy(binary: string, dir: string, setup: HaproxySetup): Promise<RunningHaproxy> {
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, testConfig(setup));
  const check = spawnSync(binary, ['-c', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`haproxy -c refused the configuration:\n${check.stdout}${check.stderr}`);
  const child: ChildProcess = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await accepts(setup.port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`haproxy did not listen on 127.0.0.1:${setup.port}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    pid: child.pid,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const probe = connect({ host: '127.0.0.1', port });
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
