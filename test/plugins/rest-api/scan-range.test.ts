import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressBatches, parseScanRange } from '../../../plugins/rest-api/scans/scan-range.js';

const ALL = ['0.0.0.0/0'];
const addresses = (text: string) => [...addressBatches(parseScanRange(text, 1 << 24, ALL), 1000)].flat();

test('single addresses, CIDR, dashed, last-octet ranges and comma lists', () => {
  assert.deepEqual(addresses('10.0.0.7'), ['10.0.0.7']);
  assert.deepEqual(addresses('10.0.0.0/30'), ['10.0.0.0', '10.0.0.1', '10.0.0.2', '10.0.0.3']);
  assert.deepEqual(addresses('10.0.0.5/30'), ['10.0.0.4', '10.0.0.5', '10.0.0.6', '10.0.0.7'], 'the base is masked to the block');
  assert.deepEqual(addresses('10.0.0.254-10.0.1.1'), ['10.0.0.254', '10.0.0.255', '10.0.1.0', '10.0.1.1']);
  assert.deepEqual(addresses('10.0.0.1-3'), ['10.0.0.1', '10.0.0.2', '10.0.0.3']);
  assert.deepEqual(addresses(' 10.0.0.9 , 10.0.0.1-2'), ['10.0.0.9', '10.0.0.1', '10.0.0.2']);
  assert.deepEqual(addresses('10.0.0.1-4,10.0.0.3-6'), ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6'], 'overlaps are scanned once');
  assert.equal(parseScanRange('10.0.0.0/16', 65536, ALL).size, 65536);
});

test('malformed parts are 400 naming the part', () => {
  const cases: Array<[string, RegExp]> = [
    ['10.0.0', /'10.0.0' is malformed: not an IPv4 address/],
    ['10.0.0.256', /'10.0.0.256'/],
    ['10.0.0.0/33', /'10.0.0.0\/33' is malformed: expected CIDR/],
    ['10.0.0.9-3', /ends before it starts/],
    ['10.0.0.1-300', /last octet 300 is above 255/],
    ['10.0.0.1,,10.0.0.2', /empty part/],
    ['010.0.0.1', /not an IPv4 address/],
    ['example.com', /'example.com' is malformed/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseScanRange(text, 65536, ALL), (err: { status: number; message: string; errors: unknown[] }) => {
      assert.equal(err.status, 400, text);
      assert.match(err.message, message);
      assert.equal(err.errors.length, 1);
      return true;
    });
  }
});

test('ranges wider than the maximum or outside the allowed networks are 422', () => {
  assert.throws(() => parseScanRange('10.0.0.0/15', 65536, ALL), { status: 422, message: /131072 addresses; at most 65536/ });
  assert.throws(() => parseScanRange('10.0.0.0/24,10.0.1.0/24', 300, ALL), { status: 422 });
  assert.throws(() => parseScanRange('8.8.8.8', 65536, ['10.0.0.0/8', '127.0.0.0/8']), { status: 422, message: /'8.8.8.8' is outside the allowed networks/ });
  assert.throws(() => parseScanRange('127.255.255.250-128.0.0.5', 65536, ['127.0.0.0/8']), { status: 422 });
});

test('a /8 is iterated lazily without building the list', () => {
  const range = parseScanRange('10.0.0.0/8', 1 << 24, ALL);
  const batches = addressBatches(range, 256);
  const first = batches.next().value!;
  assert.equal(first.length, 256);
  assert.equal(first[255], '10.0.0.255');
  assert.equal(batches.next().value![0], '10.0.1.0');
});
