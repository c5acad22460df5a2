/**
 * Collections: how a namespace of the store is laid out as a table of its own in PostgreSQL. A
 * plugin declares its collections (`collections` of its definition); the kernel declares its own.
 * Each row keeps the record whole (`key`, `value` as JSON, exactly as written) and the declared
 * fields as generated columns beside it, with the indexes the plugin's queries need, so that an
 * operator reads them with psql and SQL can filter and order by them. Namespaces nobody declared
 * live in the kernel's `gw_kv` table. LevelDB ignores declarations.
 */
import { PluginError } from '../plugins/plugin-errors.js';

/** The SQL type of a declared field (from the record's JSON): text, numbers, flags, an IP address. */
export type CollectionFieldType = 'text' | 'integer' | 'bigint' | 'boolean' | 'inet';

/** One field of the record shown as a column: `path` is the record's property, or `a.b` a nested one. */
export interface CollectionField {
  path: string;
  type: CollectionFieldType;
}

/** How one namespace is kept in PostgreSQL. */
export interface CollectionDeclaration {
  /** The table's name: lower case, digits and `_`, unique in the site. */
  table: string;
  /** What a row is, for the table's comment. */
  description: string;
  /** Columns by name (same rule as table names), each generated from the record. */
  fields?: Record<string, CollectionField>;
  /** Each index: the columns it covers, in order (the key is appended to make it unique and ordered). */
  indexes?: string[][];
}

/** A declaration placed at a namespace path: `['plugin:rest-api', 'devices']`. */
export interface PlacedCollection extends CollectionDeclaration {
  path: string[];
}

const NAME = /^[a-z][a-z0-9_]{0,47}$/;
const PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
/** Kept for the kernel's own tables. */
const RESERVED = /^gw_/;

/** The namespace path of a plugin's collection: its store namespace, then the sub-namespace (`''`: `ctx.store` itself). */
export const pluginCollectionPath = (storeNamespace: string, subNamespace: string): string[] =>
  subNamespace === '' ? [`plugin:${storeNamespace}`] : [`plugin:${storeNamespace}`, ...subNamespace.split('/')];

/**
 * Checks every declaration (names, types, indexes on declared columns) and that no two claim one
 * table or one namespace; `owner` names who declared each, for the error.
 */
export function checkCollections(placed: Array<PlacedCollection & { owner: string }>): void {
  const tables = new Map<string, string>();
  const paths = new Map<string, string>();
  for (const c of placed) {
    const fail = (what: string) => {
      throw new PluginError('GW_ERR_PLUGIN_COLLECTION', `collection '${c.table}' of '${c.owner}': ${what}`);
    };
    if (!NAME.test(c.table) || (RESERVED.test(c.table) && c.owner !== 'core')) fail('table names are lower case letters, digits and _ (at most 48), not starting with gw_');
    const fields = c.fields ?? {};
    for (const [column, field] of Object.entries(fields)) {
      if (!NAME.test(column) || column === 'key' || column === 'value') fail(`column '${column}' is not a valid name (nor key or value)`);
      if (!PATH.test(field.path)) fail(`field '${column}' has an invalid path '${field.path}'`);
      if (!['text', 'integer', 'bigint', 'boolean', 'inet'].includes(field.type)) fail(`field '${column}' has an unknown type '${String(field.type)}'`);
    }
    for (const index of c.indexes ?? []) {
      if (index.length === 0) fail('an index names no column');
      for (const column of index) if (!(column in fields)) fail(`an index names '${column}', which is not a declared field`);
    }
    const tableOwner = tables.get(c.table);
    if (tableOwner) fail(`table '${c.table}' is declared by '${tableOwner}' too`);
    tables.set(c.table, c.owner);
    const path = c.path.join('/');
    const pathOwner = paths.get(path);
    if (pathOwner) fail(`namespace ${path} is declared by '${pathOwner}' too`);
    paths.set(path, c.owner);
  }
}
