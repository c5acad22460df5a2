/**
 * `npm run demo`: a simulated fleet of AMT devices on loopback, the gateway with every plugin,
 * a default credential, a scan of the fleet with a live progress bar, the devices found, and then
 * the gateway keeps serving until Ctrl-C.
 */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../core/config/load-config.js';
import { startGateway, type Gateway } from '../../core/kernel.js';
import type { Device, Scan } from '../../plugins/rest-api/api.js';
import { startFleetProcess, type FleetProcess } from './fleet-process.js';
import { createProgressWriter, deviceTable, progressLine } from './terminal-ui.js';
import { watchScans } from './scan-watch.js';
import { CIRA_BASE, startCiraDevices } from './cira-demo.js';
import { SERVICE_PATH } from '../../plugins/soap-mps/wsdl.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FLEET_SIZE = Number(process.env.AMTGW_DEMO_DEVICES ?? 250);
const FLEET_PASSWORD = 'P@ssw0rd1';
const RMCP_PORT = 16623;
const DEMO_DATA_DIR = 'data/demo';
const CIRA_DEVICES = Number(process.env.AMTGW_DEMO_CIRA_DEVICES ?? 5);

async function api<T>(gateway: Gateway, token: string | null, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(gateway.url + path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

async function main(): Promise<void> {
  const env = { ...process.env, AMTGW_ADMIN_PASSWORD: process.env.AMTGW_ADMIN_PASSWORD ?? '' };
  const config = loadConfig({ file: process.env.AMTGW_CONFIG ?? resolve(ROOT, 'config/demo.json'), env });
  // The demo's own directory starts empty every time; one set with AMTGW_DATA_DIR is used as it is.
  const dataDir = resolve(ROOT, config.dataDir);
  if (dataDir === resolve(ROOT, DEMO_DATA_DIR)) rmSync(dataDir, { recursive: true, force: true });
  console.log(`Starting ${FLEET_SIZE} simulated AMT devices on 127.0.9.1 upward ...`);
  const fleet: FleetProcess = await startFleetProcess([
    '--count', String(FLEET_SIZE), '--base', '127.0.9.1', '--rmcp-port', String(RMCP_PORT), '--tls-every', '5',
    '--alt-password-every', '10', '--provisioning', 'post,post,in,pre', '--password', FLEET_PASSWORD, '--summary',
  ]);
  const { manifest } = fleet;
  console.log(`  ${manifest.count} devices ${manifest.firstAddress} .. ${manifest.lastAddress}: ${manifest.tlsDevices} with TLS, ${manifest.altPasswordDevices} with another password, up in ${manifest.startupMs} ms`);

  let gateway: Gateway;
  try {
    gateway = await startGateway(config, { cwd: ROOT, env });
  } catch (err) {
    await fleet.stop();
    throw err;
  }
  let ciraFleet: FleetProcess | undefined;
  let stopping = false;
  const stop = async () => {
    if (stopping) process.exit(1);
    stopping = true;
    console.log('\nStopping ...');
    await gateway.stop();
    await fleet.stop();
    await ciraFleet?.stop();
    console.log('Stopped.');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());

  const adminPassword = gateway.generatedAdminPassword ?? env.AMTGW_ADMIN_PASSWORD;
  const { token } = await api<{ token: string }>(gateway, null, 'POST', '/api/auth/login', { username: 'admin', password: adminPassword });
  await api(gateway, token, 'POST', '/api/credentials', { name: 'fleet default', username: 'admin', password: FLEET_PASSWORD, isDefault: true });

  const range = '127.0.9.0/24';
  console.log(`\nScanning ${range} (TCP 16992, 16993, RMCP on UDP ${RMCP_PORT}) ...`);
  const watch = await watchScans(gateway.url, token);
  const write = createProgressWriter();
  const t0 = Date.now();
  const started = await api<Scan>(gateway, token, 'POST', '/api/scan/start', { range });
  write(progressLine(0, 0, started.total, 0, 0), 0);
  const scan = await watch.follow(started.id, (u) => write(progressLine(u.percent, u.scanned, u.total, u.found, Date.now() - t0), u.percent));
  write(progressLine(100, scan.scanned, scan.total, scan.found, Date.now() - t0), 100);
  await watch.stop();
  process.stdout.write('\n');
  const devices = await api<Device[]>(gateway, token, 'GET', '/api/devices');
  console.log(`\nScan ${scan.status} in ${((Date.parse(scan.finishedAt!) - Date.parse(scan.startedAt)) / 1000).toFixed(1)} s: ${scan.found} devices found among ${scan.total} addresses\n`);
  console.log(deviceTable(devices));
  const unauthorized = devices.filter((d) => d.authStatus === 'unauthorized').length;
  console.log(`\n${devices.length - unauthorized} signed in with the default credential; ${unauthorized} refused it (they use another password).`);

  const ciraPort = config.plugins['cira']?.enable ? ((config.plugins['cira']?.options?.port as number | undefined) ?? 4433) : 0;
  if (ciraPort > 0 && CIRA_DEVICES > 0) {
    console.log(`\n${CIRA_DEVICES} more devices dial in over CIRA (APF over TLS) to port ${ciraPort} from ${CIRA_BASE} upward; they are read through their tunnels ...`);
    const cira = await startCiraDevices((method, path, body) => api(gateway, token, method, path, body), { count: CIRA_DEVICES, port: ciraPort, dataDir, devicePassword: FLEET_PASSWORD });
    ciraFleet = cira.fleet;
    console.log(`\n${deviceTable(cira.devices)}`);
  }

  // The listener as bound: AMTGW_SOAP_PORT and port 0 are applied by the time it listens, not in `config`.
  const soapListener = gateway.listeners.find((listener) => listener.plugin === 'soap-mps');
  const soap = soapListener ? `\n  SOAP service   ${soapListener.url}${SERVICE_PATH}?wsdl` : '';
  console.log(`
The gateway keeps serving (Ctrl-C stops it and the simulated fleet):${gateway.plugins.includes('web-console') ? `\n  Console        ${gateway.url}/  (sign in as admin)` : ''}
  API docs       ${gateway.url}/swagger
  Sign in        POST ${gateway.url}/api/auth/login  as admin / ${adminPassword}
  Live hub       ${gateway.url}/scanHub${soap}
  Data           ${dataDir}`);
}

main().catch((err: unknown) => {
  const code = (err as { code?: string }).code;
  console.error(`demo failed: ${(err as Error).message}${code ? ` (${code})` : ''}`);
  if (code === 'EADDRINUSE') console.error('Another program uses a port the demo needs; set AMTGW_PORT (HTTP) or AMTGW_SOAP_PORT.');
  process.exit(1);
});
