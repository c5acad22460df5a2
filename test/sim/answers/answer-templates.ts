/**
 * The simulator's WS-Management answers come from templates: copies of the published vectors
 * (`vectors/`, unchanged, checked against `shared/wsman-vectors` by the conformance suite) and, where
 * no vector exists, answers written from a second source (`second-source/`, sources in the README).
 * A template gives a class's properties in the device's order with the device's values; a simulated
 * device changes only the values its state decides (`with`), each written the way the template
 * writes that property: `1`/`0` where firmware sends an integer, `true`/`false` where it sends a
 * boolean. A property the template does not have cannot be added.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { childNamed, parseXmlTree, type XmlTree } from './xml-tree.js';
import type { SimInstance, SimProps, SimValue } from '../sim-xml.js';

const ROOT = fileURLToPath(new URL('./', import.meta.url));
export const COMMON_NS = 'http://schemas.dmtf.org/wbem/wscim/1/common';
const ENUMERATION_NS = 'http://schemas.xmlsoap.org/ws/2004/09/enumeration';

/** What a device's state may put in place of a template value. */
export type Override = string | number | boolean | { element: readonly XmlTree[] } | ReadonlyArray<string | number | boolean | { element: readonly XmlTree[] }>;

type Kind = 'boolean' | 'integer' | 'text' | 'element';

interface TemplateProp {
  name: string;
  value: SimValue;
  kind: Kind;
}

const kindOfText = (text: string): Kind => (text === 'true' || text === 'false' ? 'boolean' : /^-?\d+$/.test(text) ? 'integer' : 'text');

/** A value in the template's way of writing the property; throws when the state gives another type. */
function convert(where: string, kind: Kind, value: Exclude<Override, readonly unknown[]>): SimValue {
  const wrong = () => new Error(`${where}: the template writes it as ${kind}, the simulator gave ${JSON.stringify(value)}`);
  if (typeof value === 'object') {
    if (kind !== 'element') throw wrong();
    return value;
  }
  if (kind === 'element') throw wrong();
  if (kind === 'boolean') {
    if (typeof value !== 'boolean') throw wrong();
    return value ? 'true' : 'false';
  }
  if (kind === 'integer') {
    if (typeof value === 'boolean') return value ? '1' : '0';
    if (!/^-?\d+$/.test(String(value))) throw wrong();
    return String(value);
  }
  if (typeof value === 'boolean') throw wrong();
  return String(value);
}

/** One instance (or method output) of a template, to be given a device's values. */
export class InstanceTemplate {
  constructor(
    readonly file: string,
    readonly className: string,
    /** Whether the class's answers declare the CIM common namespace (datetimes and the like). */
    readonly declaresCommon: boolean,
    private readonly props: readonly TemplateProp[],
    /** The header's `Action` as the template writes it (some method answers repeat the request's, without `Response`). */
    readonly action: string,
  ) {}

  /** The names of the properties, in order (repeated ones once). */
  names(): string[] {
    return [...new Set(this.props.map((p) => p.name))];
  }

  /** The template's own value of a property (the first of a repeated one). */
  value(name: string): SimValue | undefined {
    return this.props.find((p) => p.name === name)?.value;
  }

  /**
   * The instance with `overrides` in place of the template's values; an array replaces every
   * occurrence of a repeated property (an empty one removes them).
   * @throws for a property the template does not have, or a value of another type than the template's.
   */
  with(overrides: Readonly<Record<string, Override>> = {}): SimInstance {
    for (const name of Object.keys(overrides)) {
      if (!this.props.some((p) => p.name === name)) throw new Error(`${this.file}: ${this.className} has no ${name} (a device does not send it)`);
    }
    const props: Array<readonly [string, SimValue]> = [];
    const done = new Set<string>();
    for (const prop of this.props) {
      const override = overrides[prop.name];
      if (override === undefined) {
        props.push([prop.name, prop.value]);
        continue;
      }
      if (done.has(prop.name)) continue;
      done.add(prop.name);
      const where = `${this.file}: ${this.className}.${prop.name}`;
      for (const one of Array.isArray(override) ? override : [override]) props.push([prop.name, convert(where, prop.kind, one as Exclude<Override, readonly unknown[]>)]);
    }
    return { className: this.className, props: props as SimProps, declaresCommon: this.declaresCommon };
  }
}

function instanceOf(file: string, element: XmlTree, declaresCommon: boolean, action: string): InstanceTemplate {
  const props = element.children.map((child): TemplateProp => {
    if (child.children.length > 0) return { name: child.name, value: { element: child.children }, kind: 'element' };
    return { name: child.name, value: child.text, kind: kindOfText(child.text) };
  });
  return new InstanceTemplate(file, element.name, declaresCommon, props, action);
}

/** A parsed template file: its envelope's namespace declarations and body. */
export interface AnswerFile {
  file: string;
  namespaces: Record<string, string>;
  /** The header's `Action`. */
  action: string;
  body: XmlTree;
}

const files = new Map<string, AnswerFile>();

/** Loads `vectors/...` or `second-source/...` (cached). */
export function answerFile(file: string): AnswerFile {
  let loaded = files.get(file);
  if (!loaded) {
    const tree = parseXmlTree(readFileSync(`${ROOT}${file}`, 'utf8'));
    const body = childNamed(tree, 'Body');
    if (!body) throw new Error(`${file}: no Body`);
    const action = childNamed(childNamed(tree, 'Header') ?? tree, 'Action')?.text ?? '';
    loaded = { file, namespaces: tree.declared, action, body };
    files.set(file, loaded);
  }
  return loaded;
}

/**
 * The instances of a template file: the one of a Get (or Put) answer, the items of a Pull answer,
 * or the `{Method}_OUTPUT` of a method's answer.
 */
export function instanceTemplates(file: string): InstanceTemplate[] {
  const { body, namespaces, action } = answerFile(file);
  const declaresCommon = Object.values(namespaces).includes(COMMON_NS);
  const answer = body.children[0];
  if (!answer) throw new Error(`${file}: empty Body`);
  if (answer.ns === ENUMERATION_NS && answer.name === 'PullResponse') {
    return (childNamed(answer, 'Items')?.children ?? []).map((item) => instanceOf(file, item, declaresCommon, action));
  }
  return [instanceOf(file, answer, declaresCommon, action)];
}

/** The single instance (or output) of a template file; `index` picks one item of a Pull answer. */
export function instanceTemplate(file: string, index = 0): InstanceTemplate {
  const found = instanceTemplates(file)[index];
  if (!found) throw new Error(`${file}: no instance ${index}`);
  return found;
}

/** Whether a Pull template's last page keeps its EnumerationContext beside EndOfSequence (as some firmware does). */
export function pullKeepsContextAtEnd(file: string): boolean {
  const answer = answerFile(file).body.children[0];
  return Boolean(answer && childNamed(answer, 'EnumerationContext') && childNamed(answer, 'EndOfSequence'));
}
