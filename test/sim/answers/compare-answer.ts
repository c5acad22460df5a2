/**
 * Compares a simulated device's answer with the vector of the same operation: the envelope's
 * namespace declarations, the header, and the body element by element (names, namespaces, order),
 * every property written the same way (boolean `true`/`false`, integer, text, or elements), and the
 * same value unless it is one the device's state decides (`live`). Returns the differences.
 */
import type { XmlTree } from './xml-tree.js';

export interface CompareOptions {
  /** Local names of the properties whose value is the device's own (hostname, power state, ...): compared by kind only. */
  live: ReadonlySet<string>;
  /**
   * Items of a Pull answer of a class the vector's page has not at that position, or the vectors
   * show from another firmware: compared with this instance instead (by class name).
   */
  itemVectors?: ReadonlyMap<string, XmlTree>;
}

type Kind = 'boolean' | 'integer' | 'text' | 'elements';
const kindOf = (tree: XmlTree): Kind =>
  tree.children.length > 0 ? 'elements' : tree.text === 'true' || tree.text === 'false' ? 'boolean' : /^-?\d+$/.test(tree.text) ? 'integer' : 'text';

const MESSAGE_ID = /^uuid:00000000-8086-8086-8086-[0-9A-F]{12}$/;

/** Runs of same-named children: a repeated property is one run. */
function runs(children: readonly XmlTree[]): XmlTree[][] {
  const out: XmlTree[][] = [];
  for (const child of children) {
    const last = out.at(-1);
    if (last && last[0]!.name === child.name && last[0]!.ns === child.ns) last.push(child);
    else out.push([child]);
  }
  return out;
}

function compareNode(sim: XmlTree, vector: XmlTree, path: string, options: CompareOptions, out: string[]): void {
  if (sim.ns !== vector.ns || sim.name !== vector.name) {
    out.push(`${path}: <${sim.name}> (${sim.ns}) where the vector has <${vector.name}> (${vector.ns})`);
    return;
  }
  const here = `${path}/${sim.name}`;
  const live = options.live.has(sim.name);
  if (JSON.stringify(sim.attrs) !== JSON.stringify(vector.attrs)) out.push(`${here}: attributes ${JSON.stringify(sim.attrs)}, the vector's ${JSON.stringify(vector.attrs)}`);
  if (kindOf(sim) !== kindOf(vector)) {
    out.push(`${here}: written as ${kindOf(sim)} (${JSON.stringify(sim.text)}), the vector as ${kindOf(vector)} (${JSON.stringify(vector.text)})`);
    return;
  }
  if (sim.children.length === 0) {
    if (!live && sim.text !== vector.text) out.push(`${here}: ${JSON.stringify(sim.text)}, the vector's ${JSON.stringify(vector.text)}`);
    return;
  }
  if (sim.name === 'Items') return compareItems(sim, vector, here, options, out);
  const simRuns = runs(sim.children);
  const vectorRuns = runs(vector.children);
  const names = (r: XmlTree[][]) => r.map((run) => run[0]!.name).join(',');
  if (names(simRuns) !== names(vectorRuns)) {
    out.push(`${here}: children ${names(simRuns)}, the vector's ${names(vectorRuns)}`);
    return;
  }
  simRuns.forEach((run, i) => {
    const vectorRun = vectorRuns[i]!;
    const repeatedLive = options.live.has(run[0]!.name);
    if (!repeatedLive && run.length !== vectorRun.length) out.push(`${here}/${run[0]!.name}: ${run.length} times, the vector ${vectorRun.length}`);
    run.forEach((child, j) => compareNode(child, vectorRun[Math.min(j, vectorRun.length - 1)]!, here, options, out));
  });
}

function compareItems(sim: XmlTree, vector: XmlTree, path: string, options: CompareOptions, out: string[]): void {
  sim.children.forEach((item, i) => {
    const other = options.itemVectors?.get(item.name) ?? (vector.children[i]?.name === item.name ? vector.children[i] : vector.children.find((v) => v.name === item.name));
    if (!other) out.push(`${path}: an item of ${item.name}, which the vector has not`);
    else compareNode(item, other, path, options, out);
  });
}

/** The differences between an answer and a vector (both whole envelopes), empty when they agree. */
export function compareAnswer(sim: XmlTree, vector: XmlTree, options: CompareOptions): string[] {
  const out: string[] = [];
  const declared = (tree: XmlTree) => JSON.stringify(Object.entries(tree.declared).sort());
  if (declared(sim) !== declared(vector)) out.push(`namespaces ${declared(sim)}, the vector's ${declared(vector)}`);
  const [simHeader, simBody] = sim.children;
  const [vectorHeader, vectorBody] = vector.children;
  if (!simHeader || !simBody || !vectorHeader || !vectorBody) return [...out, 'not an envelope of Header and Body'];
  const headerNames = (h: XmlTree) => h.children.map((c) => c.name).join(',');
  if (headerNames(simHeader) !== headerNames(vectorHeader)) out.push(`header ${headerNames(simHeader)}, the vector's ${headerNames(vectorHeader)}`);
  for (const name of ['To', 'Action', 'ResourceURI']) {
    const a = simHeader.children.find((c) => c.name === name);
    const b = vectorHeader.children.find((c) => c.name === name);
    if (a?.text !== b?.text || JSON.stringify(a?.attrs) !== JSON.stringify(b?.attrs)) out.push(`header ${name}: ${JSON.stringify(a?.text)}, the vector's ${JSON.stringify(b?.text)}`);
  }
  const messageId = simHeader.children.find((c) => c.name === 'MessageID')?.text ?? '';
  if (!MESSAGE_ID.test(messageId)) out.push(`MessageID ${JSON.stringify(messageId)} is not in AMT's form`);
  compareNode(simBody, vectorBody, '', options, out);
  return out;
}
