/**
 * Random passwords from the system's CSPRNG: each has an upper-case and a lower-case letter, a digit
 * and one of a few punctuation marks (what AMT and most systems require), and nothing that needs
 * escaping in XML, JSON, a URL or a shell (no `<>&"'\` or white space).
 */
import { randomInt } from 'node:crypto';

const UPPER = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const LOWER = 'abcdefghijkmnopqrstuvwxyz';
const DIGITS = '23456789';
const MARKS = '!#%*+-=?@^_';
const ALL = UPPER + LOWER + DIGITS + MARKS;

/** A password of `length` characters (at least 8). */
export function randomPassword(length = 16): string {
  if (!Number.isInteger(length) || length < 8) throw new RangeError('a password has at least 8 characters');
  const pick = (set: string) => set[randomInt(set.length)]!;
  const chars = [pick(UPPER), pick(LOWER), pick(DIGITS), pick(MARKS)];
  while (chars.length < length) chars.push(pick(ALL));
  // Fisher-Yates, so that the four required classes are not always first.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}
