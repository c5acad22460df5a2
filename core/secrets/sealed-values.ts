/**
 * Finding sealed secrets inside stored values, whoever stored them: a sealed value is a string
 * `v1.<keyId>.<nonce>.<box>` (see sealer.ts) anywhere in a JSON value. Key checks, backups and
 * key rotation find every secret this way, so a plugin that seals something needs to register nothing.
 */
const SEALED = /^v1\.([A-Za-z0-9_-]{12})\.[A-Za-z0-9+/]+=*\.[A-Za-z0-9+/]+=*$/;
const SEALED_IN_TEXT = /"v1\.([A-Za-z0-9_-]{12})\.[A-Za-z0-9+/]+=*\.[A-Za-z0-9+/]+=*"/g;

/** The key id a sealed string names, or undefined when the string is not a sealed value. */
export function sealedKeyId(value: string): string | undefined {
  return SEALED.exec(value)?.[1];
}

/** The key ids of the sealed values in a value's JSON text (cheap: no parse). */
export function sealedKeyIdsInJson(json: string): string[] {
  return [...json.matchAll(SEALED_IN_TEXT)].map((m) => m[1]!);
}

/** A copy of a JSON value with every sealed string replaced by `map(sealed)`; the same value when none is. */
export function mapSealed(value: unknown, map: (sealed: string) => string): unknown {
  if (typeof value === 'string') return sealedKeyId(value) ? map(value) : value;
  if (Array.isArray(value)) return value.map((item) => mapSealed(item, map));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapSealed(v, map)]));
  return value;
}
