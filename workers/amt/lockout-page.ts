/**
 * Recognises the page of a 401 that says the account is locked (AMT's anti-hammering) rather than
 * that the credentials are wrong. AMT's usual 401 page names both ("Incorrect user name or password,
 * or user account temporarily locked"): that one proves nothing and counts as a refusal.
 */
const LOCKED = /\b(account|user)\b[^<]{0,40}\blocked\b/i;
const AMBIGUOUS = /incorrect user ?name or password/i;

/** True when a 401 body says the account is locked and does not also blame the credentials. */
export function isLockoutPage(body: string | undefined): boolean {
  if (!body) return false;
  const text = body.length > 8192 ? body.slice(0, 8192) : body;
  return LOCKED.test(text) && !AMBIGUOUS.test(text);
}
