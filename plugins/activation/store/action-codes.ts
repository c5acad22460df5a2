/**
 * One-time codes an operator types instead of a device's AMT password (`rpc deactivate --password
 * CODE`, `rpc maintenance -password CODE ...`): a device activated with a generated password has one
 * nobody knows, and it never leaves the gateway. A code is issued for one UUID, lives a few minutes,
 * works once. It is kept in the plugin's store, so it outlives a restart and any gateway on the same
 * store takes it, and only as its SHA-256, in the key: `<uuid>/<hash>` → `{expiresAt}`. Spending a
 * code is the store's atomic `take` of that key, so of two agents showing it at once exactly one gets
 * in, and a wrong code finds no key: guessing burns no operator's code.
 */
import { createHash, randomInt } from 'node:crypto';
import type { KeyValueStore, Logger } from '../../../core/plugin-api.js';

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const LENGTH = 12;
const CODE_SHAPE = new RegExp(`^[${ALPHABET}]{${LENGTH}}$`);

export interface ActionCodes {
  /** A new code for `uuid`, replacing any code issued for it before. */
  issue(uuid: string, validSeconds: number): Promise<{ code: string; expiresAt: string }>;
  /** True (and the code spent) when `code` is a live code for `uuid`. */
  consume(uuid: string, code: string): Promise<boolean>;
  /** Removes the expired codes; returns how many. */
  sweep(): Promise<number>;
}

interface StoredCode {
  /** Epoch milliseconds. */
  expiresAt: number;
}

const keyOf = (uuid: string, code: string) => `${uuid}/${createHash('sha256').update(code, 'utf8').digest('hex')}`;

export function createActionCodes(store: KeyValueStore, now: () => number = Date.now): ActionCodes {
  return {
    async issue(uuid, validSeconds) {
      let code = '';
      for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
      const expiresAt = now() + validSeconds * 1000;
      const earlier: string[] = [];
      for await (const [key] of store.entries<StoredCode>({ prefix: `${uuid}/` })) earlier.push(key);
      await store.batch([...earlier.map((key) => ({ type: 'del' as const, key })), { type: 'put', key: keyOf(uuid, code), value: { expiresAt } satisfies StoredCode }]);
      return { code, expiresAt: new Date(expiresAt).toISOString() };
    },
    async consume(uuid, code) {
      // A password is no code: no lookup for what cannot be one.
      if (!CODE_SHAPE.test(code)) return false;
      const taken = await store.take<StoredCode>(keyOf(uuid, code));
      return taken !== undefined && taken.expiresAt > now();
    },
    async sweep() {
      const at = now();
      let removed = 0;
      for await (const page of store.pages<StoredCode>()) {
        const expired = page.filter(([, value]) => value.expiresAt <= at);
        await store.batch(expired.map(([key]) => ({ type: 'del', key })));
        removed += expired.length;
      }
      return removed;
    },
  };
}

/** Sweeps `codes` every `ms` until the returned stop, which waits for a sweep under way (before the store closes). */
export function sweepEvery(codes: ActionCodes, ms: number, logger: Logger): () => Promise<void> {
  let sweeping: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    sweeping = codes.sweep().catch((err: Error) => logger.warn('expired one-time codes not swept', { error: err.message }));
  }, ms);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await sweeping;
  };
}
