/** Runs static-body-server.ts as its own process and returns its URL. */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('./static-body-server.ts', import.meta.url));

export async function startStaticBody(workDir: string, body: string): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const file = join(workDir, `static-body-${process.hrtime.bigint()}.json`);
  writeFileSync(file, body);
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    void exited.then(() => reject(new Error('the static body server exited before listening')));
  });
  return {
    url: `http://127.0.0.1:${port.trim()}`,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
