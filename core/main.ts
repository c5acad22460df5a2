#!/usr/bin/env -S MALLOC_MMAP_THRESHOLD_=131072 node --max-semi-space-size=4 --heap-growing-percent=50
/**
 * `npm start`: runs the gateway with the site configuration from `--config <file>` or AMTGW_CONFIG.
 * SIGTERM / SIGINT stop it gracefully; a second signal exits at once. The same bin runs the
 * operator commands `backup --out FILE`, `restore FILE` and `rotate-key` (cli/store-commands.ts).
 *
 * The bin and `npm start` run this file compiled, with 4 MiB young-generation semi-spaces instead
 * of V8's 16: the gateway's garbage is small and short-lived, and the default keeps ~25 MiB more
 * resident in an idle gateway (the flag is process-wide, so the worker threads share it). And with
 * glibc's mmap threshold fixed at its default 128 KiB: glibc otherwise raises it to the size of the
 * first large block freed (scrypt's 16 MiB per password hash), after which each libuv thread that
 * hashed a password keeps 16 MiB resident (~40 MiB after a few logins; other C libraries ignore it).
 * And with the old generation grown by 1.5× its live size at each full collection instead of V8's
 * up to 4×: after a burst of device reads a gateway holding 10,000 CIRA tunnels otherwise keeps
 * 340–460 MiB resident for a live heap under 100 MiB (290 MiB with it; BENCHMARKS.md, "CIRA").
 */
import { parseArgs } from 'node:util';
import { loadConfig } from './config/load-config.js';
import type { GatewayConfig } from './config/gateway-config.js';
import { backupCommand, restoreCommand, rotateKeyCommand } from './cli/store-commands.js';

const COMMANDS = ['serve', 'backup', 'restore', 'rotate-key'] as const;

async function serve(config: GatewayConfig, acceptStoreDamage: boolean): Promise<void> {
  // Imported here: the operator commands need none of the kernel, its plugins or its HTTP stack.
  const { startGateway } = await import('./kernel.js');
  const gateway = await startGateway(config, { acceptStoreDamage });
  let signalled = false;
  const stop = (signal: string) => {
    if (signalled) process.exit(1);
    signalled = true;
    gateway.logger.info('stopping', { signal });
    gateway.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`amt-gateway: error while stopping: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

let command = 'serve';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { config: { type: 'string', short: 'c' }, out: { type: 'string', short: 'o' }, 'accept-store-damage': { type: 'boolean' }, 'accept-unauthenticated-backup': { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  command = positionals[0] ?? 'serve';
  if (!(COMMANDS as readonly string[]).includes(command)) throw new Error(`unknown command ${command}; commands: ${COMMANDS.join(', ')}`);
  const config = loadConfig(values.config ? { file: values.config } : {});
  const print = (line: string) => process.stdout.write(line + '\n');
  if (command === 'backup') await backupCommand(config, values.out, print);
  else if (command === 'restore') await restoreCommand(config, positionals[1], process.env, print, values['accept-unauthenticated-backup'] === true);
  else if (command === 'rotate-key') await rotateKeyCommand(config, process.env, print);
  else await serve(config, values['accept-store-damage'] === true);
}

main().then(
  () => {
    if (command !== 'serve') process.exit(0);
  },
  (err: unknown) => {
    const code = (err as { code?: string }).code;
    const what = command === 'serve' ? 'cannot start' : `${command} failed`;
    process.stderr.write(`amt-gateway: ${what}: ${(err as Error).message}${code ? ` (${code})` : ''}\n`);
    process.exit(1);
  },
);
