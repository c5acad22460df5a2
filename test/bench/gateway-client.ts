/** The few REST calls the benchmarks make: sign in, store a credential, run a scan to its end. */
import { setTimeout as sleep } from 'node:timers/promises';
import { ADMIN_PASSWORD } from './gateway-process.js';
import type { ScanView } from '../helpers/scan-helpers.js';

export type { ScanView };

export class GatewayClient {
  token = '';
  constructor(readonly url: string) {}

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return fetch(this.url + path, {
      method,
      headers: { ...(this.token ? { authorization: `Bearer ${this.token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.request(method, path, body);
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  async login(username = 'admin', password = ADMIN_PASSWORD): Promise<string> {
    this.token = (await this.json<{ token: string }>('POST', '/api/auth/login', { username, password })).token;
    return this.token;
  }

  async addCredential(username: string, password: string): Promise<string> {
    return (await this.json<{ id: string }>('POST', '/api/credentials', { name: 'bench fleet', username, password, isDefault: true })).id;
  }

  async startScan(range: string, extra: Record<string, unknown> = {}): Promise<ScanView> {
    return this.json<ScanView>('POST', '/api/scan/start', { range, ...extra });
  }

  /** Polls until the scan is no longer running. */
  async waitScan(id: string, timeoutMs = 900_000, intervalMs = 200): Promise<ScanView> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const scan = await this.json<ScanView>('GET', `/api/scan/${id}`);
      if (scan.status !== 'running') return scan;
      if (Date.now() > deadline) throw new Error(`scan ${id} still running after ${timeoutMs} ms`);
      await sleep(intervalMs);
    }
  }

  /** Starts a scan, waits for it, and returns it with its server-side duration in seconds. */
  async scan(range: string, extra: Record<string, unknown> = {}): Promise<{ scan: ScanView; seconds: number }> {
    const started = await this.startScan(range, extra);
    const scan = await this.waitScan(started.id);
    if (scan.status !== 'completed') throw new Error(`scan ${scan.id} ended ${scan.status}`);
    return { scan, seconds: (Date.parse(scan.finishedAt!) - Date.parse(scan.startedAt)) / 1000 };
  }
}
