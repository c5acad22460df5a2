/** Runs the simulator CLI as a child process and reads its manifest. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { FleetManifest } from '../sim/manifest.js';

const CLI = fileURLToPath(new URL('../sim/cli.ts', import.meta.url));

export interface FleetProcess {
  manifest: FleetManifest;
  stop(): Promise<void>;
}

export async function startFleetProcess(args: string[]): Promise<FleetProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const manifest = await new Promise<FleetManifest>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      try {
        resolve(JSON.parse(line) as FleetManifest);
      } catch (err) {
        reject(err as Error);
      }
    });
    void exited.then((code) => reject(new Error(`the simulator exited (${code}): ${stderr.trim()}`)));
  });
  return {
    manifest,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
