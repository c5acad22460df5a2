/** The published WS-Management vector set for the conformance suite (not part of `npm test`). */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The folder AMTGW_WSMAN_VECTORS names: `npm run test:conformance` points it at the vector set that
 * CI's clone has beside the repository, unless it is already set.
 */
export const VECTORS_DIR = process.env['AMTGW_WSMAN_VECTORS'] ?? '';

export const vectorsAvailable = (): boolean => VECTORS_DIR !== '' && existsSync(VECTORS_DIR) && statSync(VECTORS_DIR).isDirectory();

/**
 * A suite's answer when the vectors are missing: skipped where nobody asked for them, failed where
 * AMTGW_REQUIRE_VECTORS=1 says they must be there (CI, whose clone has them beside it).
 */
export function missingVectors(t: { skip(message: string): void }): void {
  const message = `the WS-Management vectors were not found at '${VECTORS_DIR}' (set AMTGW_WSMAN_VECTORS)`;
  if (process.env['AMTGW_REQUIRE_VECTORS'] === '1') throw new Error(message);
  t.skip(message);
}

export function readVector(relative: string): string {
  return readFileSync(join(VECTORS_DIR, relative), 'utf8');
}

/** Every .xml file under the vectors folder, as paths relative to it. */
export function allVectorFiles(dir = VECTORS_DIR, prefix = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...allVectorFiles(full, `${prefix}${name}/`));
    else if (name.endsWith('.xml')) out.push(`${prefix}${name}`);
  }
  return out;
}
