/**
 * The plugin definition: what a plugin declares and how it registers (part of the public plugin
 * API, exported from core/plugin-api.ts).
 */
import type { CollectionDeclaration } from '../store/collections.js';
import type { Static, TSchema } from '@sinclair/typebox';
import type { JsonSchema } from '../validation/json-schema.js';
import type { FrontendRoute, PermissionDeclaration, PluginContext } from '../plugin-api.js';

/**
 * An environment variable that overrides one of the plugin's options (e.g. `AMTGW_SOAP_PORT` for
 * `port`). Applied before the options are validated, only while the plugin is enabled.
 */
export interface PluginEnvOverride {
  /** The option it sets, a dotted path within the plugin's `options` (e.g. `port`, `tls.cert`). */
  option: string;
  /** How the text is read: `integer` (digits), `number` (digits with an optional fraction), `boolean` (`1`/`true`/`0`/`false`), `list` (comma-separated); default `string`. A value that does not parse stays text, so that validation names the option. */
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'list';
}

/** A plugin definition: what it declares and how it registers. */
export interface PluginDefinition<TConfig = Record<string, unknown>> {
  /** Unique name, kebab-case. */
  name: string;
  /** The plugin's own version (semver). */
  version: string;
  /**
   * Kernel API majors the plugin works with, e.g. `'1'` or `'1 || 2'`. Required: a plugin that
   * omits it is refused at start-up (`GW_ERR_PLUGIN_KERNEL`), since nothing tells which API it was written against.
   */
  kernel: string;
  /** Names of plugins that must be registered before this one. */
  dependencies?: string[];
  /**
   * Plugins registered before this one when they are enabled, and whose services it may reach with
   * `ctx.useOptional` (e.g. `audit`); start-up does not need them.
   */
  optionalDependencies?: string[];
  /** Route prefix of the plugin's HTTP routes. Default `/api/{name}`. */
  prefix?: string;
  /**
   * The permissions this plugin introduces and owns (they exist only while it is enabled). A
   * permission another plugin (or the kernel) declares too stops start-up, naming both.
   */
  permissions?: PermissionDeclaration[];
  /** Front-end routes the plugin contributes to the route list. */
  routes?: FrontendRoute[];
  /**
   * JSON Schema of the plugin's `options` (defaults are applied). A TypeBox schema types
   * `ctx.config` by itself (see {@link definePlugin}).
   */
  configSchema?: JsonSchema;
  /**
   * The store namespace `ctx.store` opens, default the plugin's name. A plugin split out of another
   * names the one its data was kept under, so that an upgrade finds it (e.g. `devices` keeps
   * `rest-api`'s); the two must keep to distinct sub-namespaces. Since kernel API 1.3.
   */
  storeNamespace?: string;
  /**
   * How the PostgreSQL driver lays out the plugin's namespaces, by sub-namespace of `ctx.store`
   * (`ctx.store.namespace('devices')` is `devices`): each a table with the declared fields as
   * columns and the indexes the plugin's queries need (see core/store/collections.ts). LevelDB
   * ignores it; a namespace not declared is kept in the kernel's key-value table. Since kernel API 1.6.
   */
  collections?: Record<string, CollectionDeclaration>;
  /**
   * Environment variables that override options, by variable name (since kernel API 1.3). A name
   * the kernel or another enabled plugin reads already stops start-up, naming both.
   */
  env?: Record<string, PluginEnvOverride>;
  /**
   * Top-level sections of the site file that held some of this plugin's options before they moved to
   * `plugins.<name>.options` (since kernel API 1.5; the devices plugin claims `amt`). While the plugin
   * is enabled the kernel accepts such a section, merges it under the plugin's options (a key set in
   * the options wins) and logs that it is deprecated; a section no enabled plugin claims stops start-up.
   */
  formerSections?: string[];
  register(ctx: PluginContext<TConfig>): void | Promise<void>;
}

/** A plugin definition whose `configSchema` is a TypeBox schema: `ctx.config` is its static type. */
export type SchemaPluginDefinition<S extends TSchema> = PluginDefinition<Static<S>> & { configSchema: S };

/**
 * Identity helper that types a plugin definition. With a TypeBox `configSchema` the config type is
 * inferred from it (a property with a `default` is present in `ctx.config`, since the kernel applies
 * defaults before it checks `required`); otherwise it is the type argument.
 */
export function definePlugin<S extends TSchema>(definition: SchemaPluginDefinition<S>): PluginDefinition<Static<S>>;
export function definePlugin<TConfig = Record<string, unknown>>(definition: PluginDefinition<TConfig>): PluginDefinition<TConfig>;
export function definePlugin(definition: PluginDefinition<unknown>): PluginDefinition<unknown> {
  return definition;
}
