/** Runs strong-soap-server.ts as its own process and returns its service URL. */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SERVICE_PATH } from '../../plugins/soap-mps/wsdl.js';

const SERVER = fileURLToPath(new URL('./strong-soap-server.ts', import.meta.url));

export async function startStrongSoapServer(): Promise<{ serviceUrl: string; pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    void exited.then(() => reject(new Error('the strong-soap server exited before listening')));
  });
  return {
    serviceUrl: `http://127.0.0.1:${port.trim()}${SERVICE_PATH}`,
    pid: child.pid!,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
