/**
 * The PostgreSQL store's schema: the kernel's tables, versioned (`gw_schema`), and each declared
 * collection's table, created or changed to match its declaration (`gw_collections` records what
 * was applied). Run at every start by the first instance to take the advisory lock; the others wait
 * for it and find nothing left to do. docs/postgres-store.md describes the tables.
 */
import type pg from 'pg';
import type { CollectionField, PlacedCollection } from '../collections.js';
import { rawPrefix } from './raw-keys.js';

/** The advisory lock held while migrating (any 64-bit number of our own: "amtgw" in ASCII). */
const MIGRATION_LOCK = 0x616d746777;

/** The kernel's migrations, in order; `gw_schema.version` is how many ran. Never edit one that shipped: append. */
const MIGRATIONS: string[] = [
  // 1: records of undeclared namespaces, the change log every instance follows, and the write function.
  `
  CREATE TABLE gw_schema (one boolean PRIMARY KEY DEFAULT true CHECK (one), version integer NOT NULL, migrated_at timestamptz NOT NULL DEFAULT now());
  COMMENT ON TABLE gw_schema IS 'amt-gateway: the version of the kernel''s tables (migrations applied)';
  CREATE TABLE gw_collections (table_name text PRIMARY KEY, namespace text NOT NULL UNIQUE, definition jsonb NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
  COMMENT ON TABLE gw_collections IS 'amt-gateway: each collection table, the store namespace it holds and the declaration last applied';
  CREATE TABLE gw_kv (ns text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL, value json NOT NULL, PRIMARY KEY (ns, key));
  COMMENT ON TABLE gw_kv IS 'amt-gateway: records of namespaces that no plugin declared as a collection (ns is the LevelDB-style prefix, e.g. !core!)';
  CREATE TABLE gw_change_counter (one boolean PRIMARY KEY DEFAULT true CHECK (one), seq bigint NOT NULL);
  INSERT INTO gw_change_counter (seq) VALUES (0);
  COMMENT ON TABLE gw_change_counter IS 'amt-gateway: the last change number; its row lock orders writers, so change numbers commit in order';
  CREATE TABLE gw_changes (seq bigint PRIMARY KEY, ns text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL, value json, deleted boolean NOT NULL, origin text NOT NULL, at timestamptz NOT NULL DEFAULT now());
  CREATE INDEX gw_changes_at ON gw_changes (at);
  COMMENT ON TABLE gw_changes IS 'amt-gateway: every write, in commit order, for the other instances to follow (kept for store.changeRetentionSeconds)';
  CREATE FUNCTION gw_try_inet(text) RETURNS inet LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN $1::inet; EXCEPTION WHEN others THEN RETURN NULL; END $$;
  CREATE FUNCTION gw_try_bigint(json) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN IF json_typeof($1) <> 'number' THEN RETURN NULL; END IF; RETURN trunc(($1#>>'{}')::numeric)::bigint; EXCEPTION WHEN others THEN RETURN NULL; END $$;
  CREATE FUNCTION gw_apply(changes json, origin text) RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE
    n integer := json_array_length(changes);
    last bigint;
    i integer := 0;
    c json;
    gone boolean;
  BEGIN
    IF n = 0 THEN RETURN NULL; END IF;
    UPDATE gw_change_counter SET seq = seq + n RETURNING seq INTO last;
    FOR c IN SELECT value FROM json_array_elements(changes) LOOP
      gone := (c->>'d') IS NOT NULL;
      IF c->>'t' = 'gw_kv' THEN
        IF gone THEN DELETE FROM gw_kv WHERE ns = c->>'n' AND key = c->>'k';
        ELSE INSERT INTO gw_kv (ns, key, value) VALUES (c->>'n', c->>'k', c->'v') ON CONFLICT (ns, key) DO UPDATE SET value = EXCLUDED.value;
        END IF;
      ELSIF gone THEN EXECUTE format('DELETE FROM %I WHERE key = $1', c->>'t') USING c->>'k';
      ELSE EXECUTE format('INSERT INTO %I (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', c->>'t') USING c->>'k', c->'v';
      END IF;
      INSERT INTO gw_changes (seq, ns, key, value, deleted, origin) VALUES (last - n + 1 + i, c->>'n', c->>'k', CASE WHEN gone THEN NULL ELSE c->'v' END, gone, origin);
      i := i + 1;
    END LOOP;
    PERFORM pg_notify('gw_changes', last::text);
    RETURN last;
  END $$;
  `,
  // 2: the instances of the cluster and their heartbeats, cluster-wide turns, counters.
  `
  CREATE TABLE gw_instances (id text PRIMARY KEY, name text NOT NULL, url text, started_at timestamptz NOT NULL, last_seen_at timestamptz NOT NULL, stopped_at timestamptz, cira_tunnels integer NOT NULL DEFAULT 0);
  CREATE INDEX gw_instances_name ON gw_instances (name);
  COMMENT ON TABLE gw_instances IS 'amt-gateway: each gateway process of the cluster (one row per start), with its heartbeat';
  CREATE TABLE gw_leases (name text COLLATE "C" PRIMARY KEY, holder text NOT NULL, instance text NOT NULL, taken_at timestamptz NOT NULL DEFAULT now());
  COMMENT ON TABLE gw_leases IS 'amt-gateway: cluster-wide turns (e.g. one operation at a time per device), each held by one operation of one instance; a down instance''s leases may be taken';
  CREATE TABLE gw_counters (name text PRIMARY KEY, value bigint NOT NULL);
  COMMENT ON TABLE gw_counters IS 'amt-gateway: numbers handed out once across the cluster (e.g. audit record ids)';
  `,
  // 3: sign-in attempts, so that the throttle counts every instance's.
  `
  CREATE TABLE gw_sign_in_attempts (
    id uuid PRIMARY KEY, scope text COLLATE "C" NOT NULL, address text COLLATE "C" NOT NULL, pair text COLLATE "C" NOT NULL, instance text NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(), failed_at timestamptz, name_cleared boolean NOT NULL DEFAULT false, expires_at timestamptz NOT NULL);
  CREATE INDEX gw_sign_in_attempts_address ON gw_sign_in_attempts (scope, address);
  CREATE INDEX gw_sign_in_attempts_pair ON gw_sign_in_attempts (scope, pair);
  CREATE INDEX gw_sign_in_attempts_expires ON gw_sign_in_attempts (expires_at);
  COMMENT ON TABLE gw_sign_in_attempts IS 'amt-gateway: sign-in attempts under way and failed ones within the throttle''s window, of every instance (pair: a hash of the address and the name tried, never the name)';
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The SQL expression that reads a field from the record's JSON. */
function fieldExpression(field: CollectionField): string {
  const steps = field.path.split('.');
  const json = `value${steps.map((s) => `->'${s}'`).join('')}`;
  const text = `(value${steps.slice(0, -1).map((s) => `->'${s}'`).join('')}->>'${steps[steps.length - 1]}')`;
  switch (field.type) {
    case 'text':
      return text;
    case 'integer':
      return `(gw_try_bigint(${json})::integer)`;
    case 'bigint':
      return `gw_try_bigint(${json})`;
    case 'boolean':
      return `(CASE WHEN json_typeof(${json}) = 'boolean' THEN ${text}::boolean END)`;
    case 'inet':
      return `gw_try_inet(${text})`;
  }
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const indexName = (table: string, columns: string[]) => `${table}_by_${columns.join('_')}`.slice(0, 63);

/** The statements that bring a collection's table from `previous` (undefined: none yet) to `next`. */
function collectionStatements(next: PlacedCollection, previous: PlacedCollection | undefined): string[] {
  const t = quote(next.table);
  const out: string[] = [];
  if (!previous) {
    out.push(`CREATE TABLE IF NOT EXISTS ${t} (key text COLLATE "C" PRIMARY KEY, value json NOT NULL)`);
  }
  out.push(`COMMENT ON TABLE ${t} IS ${literal(`amt-gateway: ${next.description} (namespace ${rawPrefix(next.path)})`)}`);
  const before = previous?.fields ?? {};
  const after = next.fields ?? {};
  for (const index of previous?.indexes ?? []) {
    if (!(next.indexes ?? []).some((i) => i.join() === index.join())) out.push(`DROP INDEX IF EXISTS ${quote(indexName(next.table, index))}`);
  }
  for (const [column, field] of Object.entries(before)) {
    const kept = after[column];
    if (!kept || kept.path !== field.path || kept.type !== field.type) out.push(`ALTER TABLE ${t} DROP COLUMN IF EXISTS ${quote(column)}`);
  }
  for (const [column, field] of Object.entries(after)) {
    const had = before[column];
    if (had && had.path === field.path && had.type === field.type) continue;
    out.push(`ALTER TABLE ${t} ADD COLUMN ${quote(column)} ${field.type} GENERATED ALWAYS AS (${fieldExpression(field)}) STORED`);
  }
  for (const index of next.indexes ?? []) {
    out.push(`CREATE INDEX IF NOT EXISTS ${quote(indexName(next.table, index))} ON ${t} (${[...index.map(quote), 'key'].join(', ')})`);
  }
  return out;
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** What one start applied: for the log. */
export interface MigrationReport {
  from: number;
  to: number;
  collectionsChanged: string[];
}

/**
 * Brings the database to this release's schema under the advisory lock: the kernel's migrations
 * not yet applied, then each collection whose declaration differs from the one applied. Refuses a
 * database migrated by a newer release, and a collection table that holds another namespace.
 */
export async function migrate(client: pg.ClientBase, collections: PlacedCollection[]): Promise<MigrationReport> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
  try {
    const exists = await client.query<{ present: boolean }>("SELECT to_regclass('gw_schema') IS NOT NULL AS present");
    let version = 0;
    if (exists.rows[0]!.present) version = (await client.query<{ version: number }>('SELECT version FROM gw_schema')).rows[0]?.version ?? 0;
    if (version > SCHEMA_VERSION) {
      throw new Error(`the database's amt-gateway schema is version ${version}, newer than this release's ${SCHEMA_VERSION}: run the release that migrated it (or a newer one)`);
    }
    const from = version;
    for (; version < SCHEMA_VERSION; version++) {
      await client.query('BEGIN');
      try {
        await client.query(MIGRATIONS[version]!);
        await client.query('INSERT INTO gw_schema (version) VALUES ($1) ON CONFLICT (one) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()', [version + 1]);
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
    }
    const applied = new Map<string, PlacedCollection>();
    for (const row of (await client.query<{ table_name: string; definition: PlacedCollection }>('SELECT table_name, definition FROM gw_collections')).rows) {
      applied.set(row.table_name, row.definition);
    }
    const changed: string[] = [];
    for (const collection of collections) {
      const previous = applied.get(collection.table);
      if (previous && rawPrefix(previous.path) !== rawPrefix(collection.path)) {
        throw new Error(`table ${collection.table} holds namespace ${rawPrefix(previous.path)}, but this release declares it for ${rawPrefix(collection.path)}`);
      }
      const definition = { table: collection.table, description: collection.description, path: collection.path, fields: collection.fields ?? {}, indexes: collection.indexes ?? [] };
      if (previous && JSON.stringify(previous) === JSON.stringify(definition)) continue;
      await client.query('BEGIN');
      try {
        for (const statement of collectionStatements(definition, previous)) await client.query(statement);
        // Records written under gw_kv before the namespace was declared move into its table.
        await client.query(`INSERT INTO ${quote(collection.table)} (key, value) SELECT key, value FROM gw_kv WHERE ns = $1 ON CONFLICT (key) DO NOTHING`, [rawPrefix(collection.path)]);
        await client.query('DELETE FROM gw_kv WHERE ns = $1', [rawPrefix(collection.path)]);
        await client.query(
          'INSERT INTO gw_collections (table_name, namespace, definition) VALUES ($1, $2, $3) ON CONFLICT (table_name) DO UPDATE SET definition = EXCLUDED.definition, applied_at = now()',
          [collection.table, rawPrefix(collection.path), JSON.stringify(definition)],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      }
      changed.push(collection.table);
    }
    return { from, to: SCHEMA_VERSION, collectionsChanged: changed };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  }
}
