/**
 * `parseEnvelope` alone (not part of `npm run bench`): the simulator's four answers of a device read
 * (Get of CIM_SoftwareIdentity, AMT_SetupAndConfigurationService, AMT_GeneralSettings,
 * CIM_ComputerSystemPackage), parsed in a loop, for each wsman-parse module given (e.g. another
 * build's source), alternating, by the process's CPU time (the machine may be busy); and whether each gives the same output as the first, key order
 * included, on those answers and on every WS-Management vector (`AMTGW_WSMAN_VECTORS`, if set).
 *   npx tsx test/bench/parse-micro.ts /tmp/base/workers/amt/wsman-parse.ts workers/amt/wsman-parse.ts
 * Env: LOOPS (5000 reads per round), ROUNDS (5).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createDeviceState } from '../sim/device-state.js';
import { deviceConfigs } from '../sim/fleet-options.js';
import { handleWsman } from '../sim/sim-wsman.js';
import { allVectorFiles, readVector, vectorsAvailable } from '../conformance/vectors.js';
import { buildEnvelope, getRequest } from '../../workers/amt/wsman-envelope.js';

const LOOPS = Number(process.env.LOOPS ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
type Parse = (xml: string) => unknown;
const modules: Array<[string, Parse]> = [];
for (const path of process.argv.slice(2)) modules.push([path, ((await import(pathToFileURL(resolve(path)).href)) as { parseEnvelope: Parse }).parseEnvelope]);

const [config] = deviceConfigs({ count: 1 } as Parameters<typeof deviceConfigs>[0]);
const state = createDeviceState(config!, 1);
const answers = (
  [
    ['CIM_SoftwareIdentity', { InstanceID: 'AMT' }],
    ['AMT_SetupAndConfigurationService', undefined],
    ['AMT_GeneralSettings', undefined],
    ['CIM_ComputerSystemPackage', undefined],
  ] as const
).map(([name, selectors]) => handleWsman(state, buildEnvelope(getRequest(name, 'uuid:1', selectors))).body);

const documents = [...answers, ...(vectorsAvailable() ? allVectorFiles().map(readVector) : [])];
const outcome = (parse: Parse, xml: string) => {
  try {
    return JSON.stringify(parse(xml));
  } catch (error) {
    return `throws ${(error as { code?: string }).code}: ${(error as Error).message}`;
  }
};
for (const [name, parse] of modules.slice(1)) {
  const differ = documents.filter((xml) => outcome(parse, xml) !== outcome(modules[0]![1], xml)).length;
  console.log(`${name}: ${documents.length - differ} of ${documents.length} documents parse the same as ${modules[0]![0]}${differ ? `, ${differ} DIFFER` : ''}`);
}
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, parse] of modules) {
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < LOOPS; i++) for (const xml of answers) parse(xml);
    const cpu = process.cpuUsage(cpu0);
    console.log(`round ${round} ${name}: ${((cpu.user + cpu.system) / LOOPS).toFixed(1)} µs of CPU per read (four answers)`);
  }
}
