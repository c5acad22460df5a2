/** Helpers for tests that scan a simulated fleet through the REST API. */
import type { TestGateway } from './gateway-harness.js';

export const SIM_RMCP_PORT = 16623;
/** The devices plugin's ports matching a simulator whose RMCP listens on an unprivileged port (merge with `mergeConfig`). */
export const SIM_AMT_SETTINGS = { plugins: { devices: { options: { ports: { http: 16992, https: 16993, rmcp: SIM_RMCP_PORT } } } } };

export interface ScanView {
  id: string;
  status: string;
  total: number;
  scanned: number;
  found: number;
  startedAt: string;
  finishedAt?: string;
}

export async function startScan(gw: TestGateway, token: string, body: Record<string, unknown>): Promise<ScanView> {
  const res = await gw.request('POST', '/api/scan/start', { token, body });
  if (res.status !== 202) throw new Error(`scan start failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as ScanView;
}

/** Polls the scan until it is no longer running (bounded by `timeoutMs`). */
export async function waitForScan(gw: TestGateway, token: string, id: string, timeoutMs = 60_000): Promise<ScanView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const scan = (await (await gw.request('GET', `/api/scan/${id}`, { token })).json()) as ScanView;
    if (scan.status !== 'running') return scan;
    if (Date.now() > deadline) throw new Error(`scan ${id} still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function createCredential(gw: TestGateway, token: string, body: Record<string, unknown>): Promise<string> {
  const res = await gw.request('POST', '/api/credentials', { token, body });
  if (res.status !== 201) throw new Error(`credential create failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}
