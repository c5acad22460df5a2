/**
 * What `amt-gateway rotate-key` runs (cli/store-commands.ts), without loading the configuration:
 * key-rotation.test.ts kills this 20 times, and the configuration's schema compile would take most
 * of each run on a loaded machine. The test runs the real CLI once as well.
 */
import { openStore } from '../../core/store/level-store.js';
import { rotateMasterKey } from '../../core/secrets/key-rotation.js';

const [dataDir, keyFile] = process.argv.slice(2) as [string, string];
process.stdout.write('rotate-key: opening the store\n');
const store = await openStore(dataDir);
try {
  await rotateMasterKey(store, keyFile, {}, dataDir, (step) => process.stdout.write(`rotate-key: ${step}\n`));
} finally {
  await store.close();
}
