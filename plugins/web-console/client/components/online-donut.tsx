/**
 * The online summary as a picture: the outer ring splits the devices into online and offline (they
 * add up to the total); the inner ring is the share that refused every credential (either state).
 */
import type { MonitorSummary as Summary } from '../shapes.js';

const OUTER = 64;
const INNER = 42;
const circumference = (r: number) => 2 * Math.PI * r;

function Arc({ r, from, length, cls, width }: { r: number; from: number; length: number; cls: string; width: number }) {
  const c = circumference(r);
  return <circle cx="80" cy="80" r={r} fill="none" stroke-width={width} class={cls} stroke-dasharray={`${length * c} ${c}`} stroke-dashoffset={-from * c} transform="rotate(-90 80 80)" />;
}

export function OnlineDonut({ summary }: { summary: Summary }) {
  const total = Math.max(summary.total, 1);
  const online = summary.online / total;
  const label = `${summary.total} devices: ${summary.online} online, ${summary.offline} offline, ${summary.unauthorized} unauthorized`;
  return (
    <figure class="donut">
      <svg viewBox="0 0 160 160" width="220" height="220" role="img" aria-label={label}>
        <circle cx="80" cy="80" r={OUTER} fill="none" stroke-width="20" class="seg-empty" />
        <circle cx="80" cy="80" r={INNER} fill="none" stroke-width="10" class="seg-empty" />
        {summary.total > 0 && <Arc r={OUTER} from={0} length={online} cls="seg-online" width={20} />}
        {summary.total > 0 && <Arc r={OUTER} from={online} length={summary.offline / total} cls="seg-offline" width={20} />}
        {summary.unauthorized > 0 && <Arc r={INNER} from={0} length={summary.unauthorized / total} cls="seg-unauthorized" width={10} />}
        <text x="80" y="80" text-anchor="middle" class="donut-total">
          {summary.total.toLocaleString()}
        </text>
        <text x="80" y="98" text-anchor="middle" class="donut-caption">
          devices
        </text>
      </svg>
      <figcaption>
        <ul class="legend">
          <li>
            <span class="swatch seg-online" aria-hidden="true" /> Online: <strong>{summary.online.toLocaleString()}</strong>
          </li>
          <li>
            <span class="swatch seg-offline" aria-hidden="true" /> Offline: <strong>{summary.offline.toLocaleString()}</strong>
          </li>
          <li>
            <span class="swatch seg-unauthorized" aria-hidden="true" /> Unauthorized (inner ring): <strong>{summary.unauthorized.toLocaleString()}</strong>
          </li>
        </ul>
      </figcaption>
    </figure>
  );
}
