/** Helpers of the activation tests: a gateway with the plugin on, profiles, simulated machines and their agents. */
import { startTestGateway, type TestGateway } from '../../helpers/gateway-harness.js';
import { SIM_AMT_SETTINGS } from '../../helpers/scan-helpers.js';
import { mergeConfig } from '../../../core/config/load-config.js';
import { SimMachine, type MachineOptions } from '../../sim/activation/sim-machine.js';
import { runAgent, type AgentCommand, type AgentResult, type AgentRun } from '../../sim/activation/sim-agent.js';
import { ciraPort } from '../cira/gateway-cira-helpers.js';

export interface ActivationGateway {
  gw: TestGateway;
  token: string;
  /** The agent endpoint, `ws://.../activate`. */
  url: string;
  logs: string[];
  /** The CIRA listener's port, when the cira plugin is on. */
  ciraPort: number | null;
  get<T>(path: string): Promise<T>;
  send(method: string, path: string, body?: unknown): Promise<Response>;
  stop(): Promise<void>;
}

export interface GatewayChoice {
  cira?: boolean;
  plugins?: string[];
  options?: Record<string, unknown>;
  ciraOptions?: Record<string, unknown>;
  /** Reuse a data directory and master key (restart tests); the caller removes the directory. */
  dataDir?: string;
  masterKey?: string;
}

export async function startActivationGateway(choice: GatewayChoice = {}): Promise<ActivationGateway> {
  const logs: string[] = [];
  const plugins = ['activation', 'audit', ...(choice.cira ? ['cira'] : []), ...(choice.plugins ?? [])];
  const gw = await startTestGateway({
    plugins,
    logs,
    ...(choice.dataDir ? { dataDir: choice.dataDir } : {}),
    ...(choice.masterKey ? { masterKey: choice.masterKey } : {}),
    overrides: mergeConfig(SIM_AMT_SETTINGS, {
      plugins: {
        activation: { enable: true, options: { stepTimeoutMs: 10_000, ...choice.options } },
        ...(choice.cira ? { cira: { enable: true, options: { port: 0, keepAliveIntervalSeconds: 1, keepAliveTimeoutSeconds: 3, forwardSettleMs: 50, ...choice.ciraOptions } } } : {}),
      },
    }),
  });
  const token = await gw.login();
  return {
    gw,
    token,
    url: gw.url.replace(/^http/, 'ws') + '/activate',
    logs,
    ciraPort: choice.cira ? ciraPort(logs) : null,
    async get<T>(path: string) {
      const res = await gw.request('GET', path, { token });
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    },
    send: (method, path, body) => gw.request(method, path, { token, body }),
    stop: () => gw.cleanup(),
  };
}

/** A profile, created; fails the test when the gateway refuses it. */
export async function createProfile(gateway: ActivationGateway, profile: Record<string, unknown>): Promise<void> {
  const res = await gateway.send('POST', '/api/activation/profiles', profile);
  if (res.status !== 201) throw new Error(`profile ${String(profile['name'])}: ${res.status} ${await res.text()}`);
}

/** A started machine at `127.77.<block>.<index + 1>`. */
export async function startMachine(index: number, options: Partial<MachineOptions> = {}, block = 0): Promise<SimMachine> {
  const machine = new SimMachine({ index, address: `127.77.${block}.${index + 1}`, ...options });
  await machine.start();
  return machine;
}

export function agent(gateway: ActivationGateway, machine: SimMachine, command: AgentCommand, extra: Partial<AgentRun> = {}): Promise<AgentResult> {
  return runAgent({ url: gateway.url, machine, ...command, ...extra });
}

/** Every request the firmware answered, by call. */
export function callsOf(machine: SimMachine): number {
  return [...machine.firmware.calls.values()].reduce((a, b) => a + b, 0) + machine.firmware.digest.challenges;
}
