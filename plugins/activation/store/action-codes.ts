/**
 * One-time codes an operator types instead of a device's AMT password (`rpc deactivate --password
 * CODE`, `rpc maintenance -password CODE ...`): a device activated with a generated password has one
 * nobody knows, and it never leaves the gateway. A code is issued for one UUID, lives a few minutes,
 * works once, and is kept only as its hash, in memory (a restart forgets it).
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const LENGTH = 12;

export interface ActionCodes {
  issue(uuid: string, validSeconds: number): { code: string; expiresAt: string };
  /** True (and the code spent) when `code` is a live code for `uuid`. */
  consume(uuid: string, code: string): boolean;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

export function createActionCodes(): ActionCodes {
  const live = new Map<string, { hash: Buffer; expires: number }>();
  return {
    issue(uuid, validSeconds) {
      let code = '';
      for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
      const expires = Date.now() + validSeconds * 1000;
      live.set(uuid, { hash: digest(code), expires });
      return { code, expiresAt: new Date(expires).toISOString() };
    },
    consume(uuid, code) {
      const entry = live.get(uuid);
      if (!entry || entry.expires < Date.now()) return false;
      if (!timingSafeEqual(entry.hash, digest(code))) return false;
      live.delete(uuid);
      return true;
    },
  };
}
