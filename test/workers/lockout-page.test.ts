import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isLockoutPage } from '../../workers/amt/lockout-page.js';

const page = (message: string) =>
  `<html><head><title>Intel&reg; Active Management Technology</title></head><body><h2 class=warn>${message}</h2></body></html>`;

test("AMT's usual 401 page, which blames the credentials or a lock alike, is a refusal, not a lockout", () => {
  assert.equal(isLockoutPage(page('Log on failed. Incorrect user name or password, or user account temporarily locked.')), false);
  assert.equal(isLockoutPage(''), false);
  assert.equal(isLockoutPage(undefined), false);
});

test('a 401 page that says only that the account is locked is recognised as a lockout', () => {
  assert.equal(isLockoutPage(page('Log on failed. User account temporarily locked after repeated failed log on attempts.')), true);
  assert.equal(isLockoutPage(page('The account is locked.')), true);
});
