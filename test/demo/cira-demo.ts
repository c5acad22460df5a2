/**
 * The demo's CIRA part: an MPS account, a few simulated devices that dial in over CIRA from their own
 * loopback addresses (trusting the gateway's CIRA certificate), and the wait until the gateway has
 * read them through their tunnels.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Device } from '../../plugins/rest-api/api.js';
import { startFleetProcess, type FleetProcess } from './fleet-process.js';

export const CIRA_BASE = '127.0.10.1';
const MPS = { username: 'demo-mps', password: 'Demo-MPS-P@ss1' };

type Api = <T>(method: string, path: string, body?: unknown) => Promise<T>;

export async function startCiraDevices(api: Api, options: { count: number; port: number; dataDir: string; devicePassword: string }): Promise<{ fleet: FleetProcess; devices: Device[] }> {
  await api('POST', '/api/cira/accounts', MPS);
  const { pem } = await api<{ pem: string }>('GET', '/api/cira/certificate');
  const caFile = join(options.dataDir, 'cira-ca.pem');
  writeFileSync(caFile, pem);
  const fleet = await startFleetProcess([
    '--count', String(options.count), '--base', CIRA_BASE, '--rmcp-port', 'none', '--seed', 'cira-demo', '--hostname-prefix', 'amt-cira',
    '--password', options.devicePassword, '--cira-host', '127.0.0.1', '--cira-port', String(options.port),
    '--cira-username', MPS.username, '--cira-password', MPS.password, '--cira-ca', caFile, '--summary',
  ]);
  const deadline = Date.now() + 20_000;
  for (;;) {
    const devices = (await api<Device[]>('GET', '/api/devices')).filter((d) => d.connections?.includes('cira'));
    const read = devices.filter((d) => d.hostname);
    if (read.length >= options.count || Date.now() > deadline) return { fleet, devices };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
