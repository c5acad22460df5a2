/**
 * A strict reader of the Prometheus text exposition format (0.0.4): families with their HELP and
 * TYPE, samples with their labels. It throws on any line the format does not allow, so a test that
 * parses an exposition also proves it is well-formed.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: -?\\d+)?$`);
const LABEL_PAIR = new RegExp(`^(${LABEL})="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"(?:,|$)`);
const SUFFIXES: Record<Family['type'], string[]> = { counter: [''], gauge: [''], untyped: [''], histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'] };

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const match = LABEL_PAIR.exec(rest);
    if (!match) throw new Error(`malformed labels in: ${line}`);
    if (match[1]! in labels) throw new Error(`duplicate label ${match[1]} in: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');
    rest = rest.slice(match[0].length);
  }
  return labels;
}

function parseValue(text: string, line: string): number {
  // As Prometheus reads values (Go's ParseFloat): NaN and Inf in any case; prom-client writes `Nan`.
  if (/^\+?inf$/i.test(text)) return Infinity;
  if (/^-inf$/i.test(text)) return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`malformed value in: ${line}`);
  return value;
}

export function parseExposition(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  let current: Family | undefined;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta;
      if (!new RegExp(`^${NAME}$`).test(name!)) throw new Error(`bad metric name: ${name}`);
      current = families.get(name!) ?? { name: name!, help: '', type: 'untyped', samples: [] };
      families.set(name!, current);
      if (kind === 'HELP') current.help = rest!;
      else if (['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest!)) current.type = rest as Family['type'];
      else throw new Error(`bad TYPE in: ${line}`);
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`malformed sample: ${line}`);
    const name = sample[1]!;
    if (!current || !SUFFIXES[current.type].some((suffix) => name === current!.name + suffix)) throw new Error(`sample ${name} outside its family`);
    current.samples.push({ name, labels: sample[2] ? parseLabels(sample[2], line) : {}, value: parseValue(sample[3]!, line) });
  }
  return families;
}

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const family of families.values()) {
    for (const s of family.samples) {
      if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) return s.value;
    }
  }
  return undefined;
}
