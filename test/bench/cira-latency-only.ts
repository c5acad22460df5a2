/** Runs only the CIRA latency part (`npx tsx test/bench/cira-latency-only.ts <workDir>`), for trying a change quickly. */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ciraLatency } from './cira-latency.js';

const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'cira-latency-'));
mkdirSync(dir, { recursive: true });
const figures = await ciraLatency(dir, (line) => console.log(line));
const ratio = (a: number | null, b: number | null) => (a && b ? (a / b).toFixed(2) : '?');
console.log(JSON.stringify({ ...figures, ratioP50: ratio(figures.tunnelP50, figures.directP50), ratioP99: ratio(figures.tunnelP99, figures.directP99) }));
