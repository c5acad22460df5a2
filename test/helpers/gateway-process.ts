/** Runs the gateway as a child process (`core/main.ts`), as `npm start` does, for signal and crash tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface GatewayProcess {
  child: ChildProcess;
  /** Resolves with the base URL once the gateway logs that it serves; rejects if it exits first. */
  serving: Promise<string>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  output(): string;
}

export async function spawnGateway(dataDir: string, config: Record<string, unknown>, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<GatewayProcess> {
  const file = join(dataDir, `site-${process.hrtime.bigint()}.json`);
  await writeFile(file, JSON.stringify({ dataDir, server: { host: '127.0.0.1', port: 0 }, log: { level: 'info' }, ...config }));
  const child = spawn(process.execPath, ['--import', 'tsx', ...nodeArgs, join(ROOT, 'core/main.ts'), '--config', file], {
    cwd: ROOT,
    env: { ...process.env, AMTGW_ADMIN_PASSWORD: 'admin-test-password-1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const serving = new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"msg":"gateway serving","url":"([^"]+)"/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => reject(new Error(`gateway exited with ${code} before serving:\n${output}`)));
  });
  serving.catch(() => undefined);
  return { child, serving, exited, output: () => output };
}
