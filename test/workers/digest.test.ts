/** HTTP Digest: challenge parsing as devices send it, the MD5 response, nc counting and the nonce cache. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { digestAuthorization, digestResponse, openDigestSession } from '../../workers/amt/digest-auth.js';
import { parseDigestChallenge } from '../../workers/amt/digest-challenge.js';
import { DigestNonceCache } from '../../workers/amt/digest-nonce-cache.js';

const AMT_CHALLENGE = 'Digest realm="Digest:34BF4B5A0561F95248F58509A406E046", nonce="bQali2IAAAAAAAAAn0xaWCOcxNsRcEHX",stale="false",qop="auth"';

describe('Digest challenge parsing', () => {
  it('parses the AMT challenge with its uneven separators', () => {
    assert.deepEqual(parseDigestChallenge(AMT_CHALLENGE), {
      realm: 'Digest:34BF4B5A0561F95248F58509A406E046',
      nonce: 'bQali2IAAAAAAAAAn0xaWCOcxNsRcEHX',
      qop: ['auth'],
      opaque: null,
      algorithm: 'MD5',
      stale: false,
    });
  });
  it('keeps + / and = of base64 nonces, quoted or not', () => {
    assert.equal(parseDigestChallenge('Digest realm="Digest:00000000000000000000000000000000",nonce="ab+c/d==",qop="auth"')?.nonce, 'ab+c/d==');
    assert.equal(parseDigestChallenge('Digest realm=x, nonce=ab+c/d==, qop=auth')?.nonce, 'ab+c/d==');
  });
  it('accepts unquoted values, odd spacing, upper-case names and a stale flag', () => {
    const c = parseDigestChallenge('digest   REALM = "Digest:ABC" ,NONCE="n1" ,  qop = "auth,auth-int",stale=TRUE , opaque="op"');
    assert.deepEqual(c, { realm: 'Digest:ABC', nonce: 'n1', qop: ['auth', 'auth-int'], opaque: 'op', algorithm: 'MD5', stale: true });
  });
  it('finds Digest among other schemes and in several header values', () => {
    assert.equal(parseDigestChallenge('Basic realm="x", Digest realm="r", nonce="n", qop="auth"')?.realm, 'r');
    assert.equal(parseDigestChallenge(['Negotiate', 'Digest realm="r2", nonce="n2"'])?.nonce, 'n2');
  });
  it('handles escaped quotes in quoted strings', () => {
    assert.equal(parseDigestChallenge('Digest realm="a \\"b\\" c", nonce="n"')?.realm, 'a "b" c');
  });
  it('returns null without a usable Digest challenge', () => {
    for (const h of [undefined, '', 'Basic realm="x"', 'Digest realm="r"', 'Digest nonce="n"', 'Digest realm="r", nonce="n", algorithm=SHA-256']) {
      assert.equal(parseDigestChallenge(h), null, String(h));
    }
  });
});

describe('Digest response', () => {
  it('matches the RFC 2617 example', () => {
    const challenge = { realm: 'testrealm@host.com', nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093', qop: ['auth'], opaque: null, algorithm: 'MD5', stale: false };
    const response = digestResponse({ username: 'Mufasa', password: 'Circle Of Life' }, challenge, 'GET', '/dir/index.html', '00000001', '0a4f113b', 'auth');
    assert.equal(response, '6629fae49393a05397450978507c4ef1');
  });
  it('answers each realm and method with its own hashes when one credential signs several in turn', () => {
    const credentials = { username: 'Mufasa', password: 'Circle Of Life' };
    const rfc = { realm: 'testrealm@host.com', nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093', qop: ['auth'], opaque: null, algorithm: 'MD5', stale: false };
    const other = { ...rfc, realm: 'Digest:34BF4B5A0561F95248F58509A406E046' };
    const md5 = (text: string) => createHash('md5').update(text).digest('hex');
    const expected = (realm: string, method: string) =>
      md5(`${md5(`Mufasa:${realm}:Circle Of Life`)}:${rfc.nonce}:00000001:0a4f113b:auth:${md5(`${method}:/dir/index.html`)}`);
    for (const [challenge, method] of [[rfc, 'GET'], [other, 'GET'], [other, 'POST'], [rfc, 'POST'], [rfc, 'GET']] as const) {
      assert.equal(digestResponse(credentials, challenge, method, '/dir/index.html', '00000001', '0a4f113b', 'auth'), expected(challenge.realm, method), `${challenge.realm} ${method}`);
    }
    assert.equal(digestResponse({ ...credentials, password: 'other' }, rfc, 'GET', '/dir/index.html', '00000001', '0a4f113b', 'auth') === expected(rfc.realm, 'GET'), false);
  });
  it('counts nc up on one nonce and never sends an empty response', () => {
    const session = openDigestSession(parseDigestChallenge(AMT_CHALLENGE)!);
    const first = digestAuthorization({ username: 'admin', password: 'pw' }, session, 'POST', '/wsman');
    const second = digestAuthorization({ username: 'admin', password: 'pw' }, session, 'POST', '/wsman');
    assert.match(first, /nc=00000001/);
    assert.match(second, /nc=00000002/);
    for (const header of [first, second]) {
      assert.match(header, /^Digest username="admin", realm="Digest:34BF4B5A0561F95248F58509A406E046", nonce="bQali2IAAAAAAAAAn0xaWCOcxNsRcEHX", uri="\/wsman", response="[0-9a-f]{32}", qop=auth/);
      assert.doesNotMatch(header, /pw/);
    }
  });
  it('escapes quotes in the username', () => {
    const session = openDigestSession(parseDigestChallenge(AMT_CHALLENGE)!);
    assert.match(digestAuthorization({ username: 'a"b', password: 'x' }, session, 'POST', '/wsman'), /username="a\\"b"/);
  });
});

describe('nonce cache', () => {
  it('lends a session to one request at a time and takes the most recently returned first', () => {
    const cache = new DigestNonceCache();
    const challenge = parseDigestChallenge(AMT_CHALLENGE)!;
    const first = openDigestSession(challenge);
    const second = openDigestSession(challenge);
    cache.give('a', first);
    cache.give('a', second);
    assert.equal(cache.take('a'), second);
    assert.equal(cache.take('a'), first);
    assert.equal(cache.take('a'), undefined, 'a lent session is not lent again until given back');
  });
  it('keeps a few idle sessions per device and evicts the least recently used device beyond its bound', () => {
    const cache = new DigestNonceCache(2, 3);
    const challenge = parseDigestChallenge(AMT_CHALLENGE)!;
    for (let i = 0; i < 5; i++) cache.give('a', openDigestSession(challenge));
    assert.equal(cache.idle('a'), 3);
    cache.give('b', openDigestSession(challenge));
    cache.give('a', openDigestSession(challenge));
    cache.give('c', openDigestSession(challenge));
    assert.equal(cache.size, 2);
    assert.equal(cache.idle('a'), 3);
    assert.equal(cache.take('b'), undefined);
  });
});
