/**
 * Runs a simulated fleet until SIGINT/SIGTERM and prints its manifest (JSON, one line) on stdout.
 *
 *   tsx test/sim/cli.ts --count 250 --base 127.0.9.1 --tls-every 4 --rmcp-port 16623
 *
 * Run with --help for every option.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startFleet } from './fleet.js';
import type { FleetOptions, ProvisioningState } from './fleet-options.js';

const HELP = `Usage: tsx test/sim/cli.ts [options]
  --count N                 devices (default 10)
  --base ADDRESS            first loopback address (default 127.0.9.1); .0 and .255 are skipped
  --http-port N             WS-Man over HTTP (default 16992)
  --https-port N            WS-Man over TLS (default 16993)
  --rmcp-port N             RMCP presence port; 0 or "none" disables (default 623)
  --tls-every N             every Nth device listens on TLS instead of HTTP (0 none, 1 all)
  --http-on-tls             TLS devices also listen on the HTTP port
  --tls-max-version V       highest TLS version of the TLS devices: TLSv1 or TLSv1.1 makes them old firmware
  --username NAME           (default admin)
  --password PASS           default password (default P@ssw0rd1)
  --alt-password PASS       password of the devices chosen by --alt-password-every (default Other-P@ss2)
  --alt-password-every N    every Nth device uses the alternative password
  --provisioning LIST       states assigned in turn: pre,in,post or 0,1,2 (default post)
  --modes LIST              modes of provisioned devices: acm,ccm or 1,4 (default acm,ccm)
  --power-state N           initial DMTF power state (default 2)
  --seed S                  seed of hostnames, UUIDs, realms, firmware versions (default 1)
  --hostname-prefix P       (default amt-sim)
  --domain D                (default sim.example)
  --firmware LIST           firmware versions to draw from, e.g. 15.0.23.1706,16.1.27.2225
  --page-size N             most items per Pull (default 100)
  --event-records N         event log records per device (default 24)
  --lockout-threshold N     failed logins before lockout (default 10)
  --lockout-ms N            first lockout duration (default 5000)
  --chunk-size N            bytes per chunk of a response (default 200)
  --response-delay MIN-MAX  answer each HTTP request after a per-device delay drawn from MIN-MAX ms
                            ("field": AMT's 50-400 ms; default none)
  --cira-port N             dial in over CIRA (APF over TLS) to this port of --cira-host
  --cira-host ADDRESS       the gateway's CIRA listener (default 127.0.0.1)
  --cira-username NAME      MPS account (default amt-sim)
  --cira-password PASS      MPS password (default P@ssw0rd-cira1)
  --cira-ca PATH            PEM to trust for the CIRA server (default: not checked)
  --cira-every N            every Nth device dials in (default 1: all)
  --cira-lan                CIRA devices also listen on the LAN
  --cira-reconnect-ms N     redial delay after a lost tunnel (default 2000)
  --cira-ramp-ms N          spread the devices' first dial over N ms (default 0: all at once)
  --manifest-file PATH      also write the manifest to PATH
  --summary                 print the manifest without the device list`;

const STATES: Record<string, ProvisioningState> = { pre: 0, in: 1, post: 2, '0': 0, '1': 1, '2': 2 };
const MODES: Record<string, number> = { acm: 1, ccm: 4, '1': 1, '4': 4 };

function int(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (value === 'none') return 0;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer`);
  return n;
}

function list<T>(value: string | undefined, table: Record<string, T>, name: string): T[] | undefined {
  if (value === undefined) return undefined;
  return value.split(',').map((v) => {
    const entry = table[v.trim().toLowerCase()];
    if (entry === undefined) throw new Error(`--${name}: unknown value ${v}`);
    return entry;
  });
}

function tlsVersion(value: string | undefined): FleetOptions['tlsMaxVersion'] {
  if (value === undefined) return undefined;
  if (value === 'TLSv1' || value === 'TLSv1.1' || value === 'TLSv1.2' || value === 'TLSv1.3') return value;
  throw new Error(`--tls-max-version: unknown value ${value}`);
}

function delayRange(value: string | undefined): FleetOptions['responseDelayMs'] {
  if (value === undefined) return undefined;
  if (value === 'field') return true;
  const match = /^(\d+)-(\d+)$/.exec(value);
  if (!match) throw new Error('--response-delay must be MIN-MAX in ms (e.g. 50-400) or "field"');
  return [Number(match[1]), Number(match[2])];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string' }, base: { type: 'string' }, 'http-port': { type: 'string' }, 'https-port': { type: 'string' },
      'rmcp-port': { type: 'string' }, 'tls-every': { type: 'string' }, 'http-on-tls': { type: 'boolean' },
      'tls-max-version': { type: 'string' }, username: { type: 'string' }, password: { type: 'string' }, 'alt-password': { type: 'string' },
      'alt-password-every': { type: 'string' }, provisioning: { type: 'string' }, modes: { type: 'string' },
      'power-state': { type: 'string' }, seed: { type: 'string' }, 'hostname-prefix': { type: 'string' },
      domain: { type: 'string' }, firmware: { type: 'string' }, 'page-size': { type: 'string' },
      'event-records': { type: 'string' }, 'lockout-threshold': { type: 'string' }, 'lockout-ms': { type: 'string' },
      'chunk-size': { type: 'string' }, 'response-delay': { type: 'string' }, 'cira-port': { type: 'string' }, 'cira-host': { type: 'string' },
      'cira-username': { type: 'string' }, 'cira-password': { type: 'string' }, 'cira-ca': { type: 'string' },
      'cira-every': { type: 'string' }, 'cira-lan': { type: 'boolean' }, 'cira-reconnect-ms': { type: 'string' }, 'cira-ramp-ms': { type: 'string' }, 'manifest-file': { type: 'string' }, summary: { type: 'boolean' }, help: { type: 'boolean' },
    },
  });
  if (values.help) {
    console.log(HELP);
    return;
  }
  const options: FleetOptions = {
    count: int(values.count, 'count') ?? 10,
    base: values.base,
    httpPort: int(values['http-port'], 'http-port'),
    httpsPort: int(values['https-port'], 'https-port'),
    rmcpPort: int(values['rmcp-port'], 'rmcp-port'),
    tlsEvery: int(values['tls-every'], 'tls-every'),
    httpOnTlsDevices: values['http-on-tls'],
    tlsMaxVersion: tlsVersion(values['tls-max-version']),
    username: values.username,
    password: values.password,
    altPassword: values['alt-password'],
    altPasswordEvery: int(values['alt-password-every'], 'alt-password-every'),
    provisioningStates: list(values.provisioning, STATES, 'provisioning'),
    provisioningModes: list(values.modes, MODES, 'modes'),
    powerState: int(values['power-state'], 'power-state'),
    seed: values.seed,
    hostnamePrefix: values['hostname-prefix'],
    domain: values.domain,
    firmwareVersions: values.firmware?.split(','),
    pageSize: int(values['page-size'], 'page-size'),
    eventLogRecords: int(values['event-records'], 'event-records'),
    lockoutThreshold: int(values['lockout-threshold'], 'lockout-threshold'),
    lockoutMs: int(values['lockout-ms'], 'lockout-ms'),
    chunkSize: int(values['chunk-size'], 'chunk-size'),
    responseDelayMs: delayRange(values['response-delay']),
    cira: values['cira-port']
      ? {
          host: values['cira-host'] ?? '127.0.0.1',
          port: int(values['cira-port'], 'cira-port')!,
          username: values['cira-username'] ?? 'amt-sim',
          password: values['cira-password'] ?? 'P@ssw0rd-cira1',
          ca: values['cira-ca'] ? readFileSync(values['cira-ca'], 'utf8') : undefined,
          reconnectMs: int(values['cira-reconnect-ms'], 'cira-reconnect-ms'),
        }
      : undefined,
    ciraEvery: int(values['cira-every'], 'cira-every'),
    ciraLan: values['cira-lan'],
    ciraRampMs: int(values['cira-ramp-ms'], 'cira-ramp-ms'),
  };
  const fleet = await startFleet(options);
  const manifest = fleet.manifest();
  if (values['manifest-file']) writeFileSync(values['manifest-file'], JSON.stringify(manifest, null, 2));
  const printed = values.summary ? { ...manifest, devices: undefined } : manifest;
  process.stdout.write(`${JSON.stringify(printed)}\n`);
  process.stderr.write(`amt-sim: ${manifest.count} devices ${manifest.firstAddress}..${manifest.lastAddress} up in ${manifest.startupMs} ms\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void fleet.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`amt-sim: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
