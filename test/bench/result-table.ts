/** Prints results as aligned text (console) and as Markdown (BENCHMARKS.md). */
import { ratio, type BenchResult, type Figure } from './bench-result.js';

/** Three significant figures or so; whole numbers (counts) as they are. */
export function formatNumber(n: number | null | undefined, wholeAsIs = true): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  if (wholeAsIs && Number.isInteger(n)) return n.toLocaleString('en-US');
  const abs = Math.abs(n);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function cells(f: Figure): string[] {
  const r = ratio(f);
  const withUnit = (n: number | null | undefined) => (n === null || n === undefined ? '—' : `${formatNumber(n)} ${f.unit}`.trim());
  return [f.label, withUnit(f.gateway), f.reference === undefined ? '' : withUnit(f.reference), r === null ? '' : `×${formatNumber(r, false)}`, f.better ? `${f.better} is better` : '', f.note ?? ''];
}

const HEAD = ['figure', 'gateway', 'reference', 'gateway ÷ ref', '', 'note'];

export function textTable(result: BenchResult): string {
  if (result.skipped) return `== ${result.title}\n   skipped: ${result.skipped}\n`;
  const rows = [HEAD, ...result.figures.map(cells)];
  const widths = HEAD.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => '   ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : i === r.length - 1 ? c : c.padStart(widths[i]!))).join('  ').trimEnd();
  const out = [`== ${result.title}`, `   reference: ${result.reference}`, line(rows[0]!), ...rows.slice(1).map(line)];
  for (const note of result.notes) out.push(`   * ${note}`);
  if (result.load) out.push(`   load average (1, 5, 15 min) before ${result.load.before}, after ${result.load.after}; took ${formatNumber(result.seconds)} s`);
  return out.join('\n') + '\n';
}

export function markdownTable(result: BenchResult): string {
  if (result.skipped) return `### ${result.title}\n\nSkipped: ${result.skipped}\n`;
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const out = [`### ${result.title}`, '', `Reference: ${esc(result.reference)}`, '', `| ${HEAD.join(' | ')} |`, `|${HEAD.map((_, i) => (i === 0 || i === HEAD.length - 1 ? '---' : '---:')).join('|')}|`];
  for (const f of result.figures) out.push(`| ${cells(f).map(esc).join(' | ')} |`);
  out.push('');
  for (const note of result.notes) out.push(`- ${note}`);
  if (result.load) out.push(`- Load average (1, 5, 15 min): ${result.load.before} before, ${result.load.after} after; the benchmark took ${formatNumber(result.seconds)} s.`);
  return out.join('\n') + '\n';
}
