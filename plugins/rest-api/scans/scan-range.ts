import { type Cidr, formatIpv4, insideNetworks, parseCidr, parseIpv4 } from '../../../core/net/ipv4.js';
import { RestApiErrors } from '../errors.js';

/** One contiguous block of a range, inclusive. */
export interface AddressBlock {
  first: number;
  last: number;
}

/** A parsed scan range: blocks in the order given, overlaps removed, never expanded into a list. */
export interface ScanRange {
  blocks: AddressBlock[];
  size: number;
}

function parsePart(part: string): AddressBlock {
  if (part.includes('/')) {
    const cidr = parseCidr(part);
    if (!cidr) throw RestApiErrors.rangeMalformed(part, 'expected CIDR like 10.0.0.0/24');
    return { first: cidr.first, last: cidr.last };
  }
  const dash = part.indexOf('-');
  if (dash < 0) {
    const single = parseIpv4(part);
    if (single === undefined) throw RestApiErrors.rangeMalformed(part, 'not an IPv4 address');
    return { first: single, last: single };
  }
  const from = part.slice(0, dash).trim();
  const to = part.slice(dash + 1).trim();
  const first = parseIpv4(from);
  if (first === undefined) throw RestApiErrors.rangeMalformed(part, `'${from}' is not an IPv4 address`);
  let last: number | undefined;
  if (/^\d{1,3}$/.test(to)) {
    const octet = Number(to);
    if (octet > 255) throw RestApiErrors.rangeMalformed(part, `last octet ${to} is above 255`);
    last = Math.floor(first / 256) * 256 + octet;
  } else {
    last = parseIpv4(to);
    if (last === undefined) throw RestApiErrors.rangeMalformed(part, `'${to}' is not an IPv4 address or a last octet`);
  }
  if (last < first) throw RestApiErrors.rangeMalformed(part, 'the range ends before it starts');
  return { first, last };
}

/** Removes overlaps so no address is scanned twice; keeps the first-given order of the rest. */
function disjoint(blocks: AddressBlock[]): AddressBlock[] {
  const out: AddressBlock[] = [];
  for (const block of blocks) {
    let pieces = [block];
    for (const seen of out) {
      pieces = pieces.flatMap((p) => {
        if (p.last < seen.first || p.first > seen.last) return [p];
        const rest: AddressBlock[] = [];
        if (p.first < seen.first) rest.push({ first: p.first, last: seen.first - 1 });
        if (p.last > seen.last) rest.push({ first: seen.last + 1, last: p.last });
        return rest;
      });
    }
    out.push(...pieces);
  }
  return out;
}

/**
 * Parses a scan range: comma-separated single addresses, CIDR blocks, dashed ranges and last-octet
 * ranges. Malformed parts are 400 naming the part; too wide or outside the allowed networks 422.
 */
export function parseScanRange(text: string, maxAddresses: number, allowedNetworks: readonly string[]): ScanRange {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === '')) throw RestApiErrors.rangeMalformed(text, 'empty part');
  const networks = allowedNetworks.map(parseCidr).filter((n): n is Cidr => n !== undefined);
  const blocks = parts.map((part) => {
    const block = parsePart(part);
    if (!insideNetworks(block.first, block.last, networks)) throw RestApiErrors.rangeNotAllowed(part);
    return block;
  });
  const unique = disjoint(blocks);
  const size = unique.reduce((n, b) => n + (b.last - b.first + 1), 0);
  if (size > maxAddresses) throw RestApiErrors.rangeTooWide(size, maxAddresses);
  return { blocks: unique, size };
}

/** Yields the range in batches of at most `batchSize` addresses, lazily. */
export function* addressBatches(range: ScanRange, batchSize: number): Generator<string[]> {
  let batch: string[] = [];
  for (const block of range.blocks) {
    for (let address = block.first; address <= block.last; address++) {
      batch.push(formatIpv4(address));
      if (batch.length === batchSize) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length) yield batch;
}
