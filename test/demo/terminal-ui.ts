/** Terminal output of the demo: a live progress bar and a device table. */
import type { Device } from '../../plugins/rest-api/api.js';

const BAR_WIDTH = 32;

/** One line of scan progress: the hub's percent (it reaches 100 only when every device is read). */
export function progressLine(percent: number, scanned: number, total: number, found: number, elapsedMs: number): string {
  const filled = Math.round((percent / 100) * BAR_WIDTH);
  const bar = '#'.repeat(filled) + '.'.repeat(BAR_WIDTH - filled);
  const phase = percent < 100 ? 'scanning' : 'done';
  return `[${bar}] ${String(percent).padStart(3)}%  ${scanned}/${total} addresses  ${String(found).padStart(4)} devices  ${phase.padEnd(10)} ${(elapsedMs / 1000).toFixed(1)} s`;
}

/** Writes progress in place on a terminal, or a line per 10 % elsewhere (logs, CI). */
export function createProgressWriter(out: NodeJS.WriteStream = process.stdout): (line: string, percent: number) => void {
  let lastDecile = -1;
  return (line, percent) => {
    if (out.isTTY) {
      out.write(`\r${line}`);
      return;
    }
    const decile = Math.floor(percent / 10);
    if (decile !== lastDecile) {
      lastDecile = decile;
      out.write(`${line}\n`);
    }
  };
}

export function deviceTable(devices: Device[]): string {
  const rows = devices.map((d) => [
    d.ipAddress,
    d.hostname ?? '-',
    d.firmwareVersion ?? '-',
    d.provisioningState ?? '-',
    d.provisioningMode ?? '-',
    d.tls ? 'yes' : 'no',
    d.authStatus,
    d.connections?.join('+') || '-',
  ]);
  const header = ['Address', 'Hostname', 'Firmware', 'State', 'Mode', 'TLS', 'Sign-in', 'Via'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(format)].join('\n');
}
