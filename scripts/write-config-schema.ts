// Writes schemas/config.schema.json from the TypeBox schema in core/config/gateway-config.ts, the
// one the gateway validates with: `node --import tsx scripts/write-config-schema.ts`.
// test/core/config-schema.test.ts fails while the two differ.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GATEWAY_CONFIG_SCHEMA } from '../core/config/gateway-config.js';

writeFileSync(fileURLToPath(new URL('../schemas/config.schema.json', import.meta.url)), `${JSON.stringify(GATEWAY_CONFIG_SCHEMA, null, 2)}\n`);
