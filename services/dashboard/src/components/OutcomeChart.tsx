// Attempts per minute by outcome (GET /stats) as stacked bars (recharts).
// Dead letters are failures too, so they are marked on top of their bar
// rather than stacked. The picture's accessible name says the totals in
// words for screen readers; the legend shows them to everyone.
import { Bar, CartesianGrid, ComposedChart, ResponsiveContainer, Scatter, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS_TICK, COLORS, hhmm } from "../lib/chart";
import type { StatsBucket } from "../lib/types";

const SERIES = [
  { key: "success", label: "Success", className: "s-success", color: COLORS.success },
  { key: "httpFailure", label: "HTTP failure", className: "s-http", color: COLORS.http },
  { key: "networkFailure", label: "Network failure", className: "s-network", color: COLORS.network },
] as const;

interface Row extends StatsBucket {
  label: string;
  /** the bar's height when the minute has dead letters, where their mark goes */
  deadMark: number | null;
}

function Tip({ active, payload }: { active?: boolean; payload?: Array<{ payload: Row }> }) {
  const row = payload?.[0]?.payload;
  if (!active || !row) return null;
  return (
    <div className="chart-tip">
      <strong>{row.label}</strong>
      {SERIES.map((s) => (
        <div key={s.key}>
          {s.label}: {row[s.key]}
        </div>
      ))}
      <div>Dead letters: {row.deadLetters}</div>
    </div>
  );
}

export function OutcomeChart({ buckets }: { buckets: StatsBucket[] }) {
  const totals = { success: 0, httpFailure: 0, networkFailure: 0, deadLetters: 0 };
  const rows: Row[] = buckets.map((b) => {
    totals.success += b.success;
    totals.httpFailure += b.httpFailure;
    totals.networkFailure += b.networkFailure;
    totals.deadLetters += b.deadLetters;
    const height = b.success + b.httpFailure + b.networkFailure;
    return { ...b, label: hhmm(b.minute), deadMark: b.deadLetters > 0 ? height : null };
  });
  const summary =
    `Attempts per minute over the last ${buckets.length} minutes: ${totals.success} successful, ` +
    `${totals.httpFailure} HTTP failures, ${totals.networkFailure} network failures, ${totals.deadLetters} dead letters.`;

  return (
    <figure className="chart">
      <div className="chart-box" role="img" aria-label={summary} data-testid="outcome-chart">
        <ResponsiveContainer width="100%" height={220}>
          <ComposedChart data={rows} margin={{ top: 12, right: 12, bottom: 0, left: -12 }} accessibilityLayer={false}>
            <CartesianGrid vertical={false} stroke={COLORS.grid} />
            <XAxis dataKey="label" tick={AXIS_TICK} tickLine={false} minTickGap={28} />
            <YAxis allowDecimals={false} tick={AXIS_TICK} tickLine={false} axisLine={false} />
            <Tooltip content={<Tip />} isAnimationActive={false} cursor={{ fill: "rgba(51, 67, 201, 0.06)" }} />
            {SERIES.map((s) => (
              <Bar key={s.key} dataKey={s.key} stackId="outcomes" fill={s.color} isAnimationActive={false} maxBarSize={18} />
            ))}
            <Scatter dataKey="deadMark" fill={COLORS.dead} isAnimationActive={false} />
          </ComposedChart>
        </ResponsiveContainer>
      </div>
      <figcaption>
        <ul className="legend">
          {SERIES.map((s) => (
            <li key={s.key}>
              <span className={`swatch ${s.className}`} aria-hidden="true" />
              {s.label} <strong>{totals[s.key]}</strong>
            </li>
          ))}
          <li>
            <span className="swatch dot s-dead" aria-hidden="true" />
            Dead letters <strong>{totals.deadLetters}</strong>
          </li>
        </ul>
      </figcaption>
    </figure>
  );
}
