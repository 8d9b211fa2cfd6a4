// How late first attempts started, per minute (GET /overview): the median,
// the 99th percentile and the largest lateness of the first attempts that
// started in each minute, as lines (recharts); a minute with none is a gap.
// The picture's accessible name says the figures in words; the legend
// shows them to everyone.
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS_TICK, COLORS, duration, hhmm, niceTicks } from "../lib/chart";
import { number } from "../lib/format";
import type { LatenessBucket } from "../lib/types";

const SERIES = [
  { key: "p50Ms", label: "Median", color: COLORS.p50, dash: undefined },
  { key: "p99Ms", label: "99th percentile", color: COLORS.p99, dash: undefined },
  { key: "maxMs", label: "Largest", color: COLORS.max, dash: "4 3" },
] as const;

interface Row extends LatenessBucket {
  label: string;
}

function Tip({ active, payload }: { active?: boolean; payload?: Array<{ payload: Row }> }) {
  const row = payload?.[0]?.payload;
  if (!active || !row) return null;
  return (
    <div className="chart-tip">
      <strong>{row.label}</strong>
      <div>Started: {row.started}</div>
      {SERIES.map((s) => (
        <div key={s.key}>
          {s.label}: {duration(row[s.key])}
        </div>
      ))}
    </div>
  );
}

/** The worst minute by `key`, or null when nothing started. */
function worst(buckets: LatenessBucket[], key: "p50Ms" | "p99Ms" | "maxMs"): LatenessBucket | null {
  let found: LatenessBucket | null = null;
  for (const b of buckets) if (b[key] !== null && (found === null || b[key]! > found[key]!)) found = b;
  return found;
}

export function LatenessChart({ buckets }: { buckets: LatenessBucket[] }) {
  const started = buckets.reduce((n, b) => n + b.started, 0);
  const rows: Row[] = buckets.map((b) => ({ ...b, label: hhmm(b.minute) }));
  const p99 = worst(buckets, "p99Ms");
  const max = worst(buckets, "maxMs");
  const ticks = niceTicks(max?.maxMs ?? 0);
  const summary =
    started === 0
      ? `Lateness of first attempts over the last ${buckets.length} minutes: none started.`
      : `Lateness of first attempts over the last ${buckets.length} minutes: ${started} started; ` +
        `the highest 99th percentile of a minute was ${duration(p99!.p99Ms)} at ${hhmm(p99!.minute)}, ` +
        `the largest lateness ${duration(max!.maxMs)} at ${hhmm(max!.minute)}.`;

  return (
    <figure className="chart">
      <div className="chart-box" role="img" aria-label={summary} data-testid="lateness-chart">
        <ResponsiveContainer width="100%" height={200}>
          <LineChart data={rows} margin={{ top: 12, right: 12, bottom: 0, left: 4 }} accessibilityLayer={false}>
            <CartesianGrid vertical={false} stroke={COLORS.grid} />
            <XAxis dataKey="label" tick={AXIS_TICK} tickLine={false} minTickGap={28} />
            <YAxis
              domain={[0, ticks[4]!]}
              ticks={ticks}
              tick={AXIS_TICK}
              tickLine={false}
              axisLine={false}
              tickFormatter={(v: number) => duration(v)}
              width={64}
            />
            <Tooltip content={<Tip />} isAnimationActive={false} />
            {SERIES.map((s) => (
              <Line
                key={s.key}
                dataKey={s.key}
                stroke={s.color}
                strokeDasharray={s.dash}
                strokeWidth={s.key === "maxMs" ? 1 : 2}
                dot={{ r: 2, fill: s.color, stroke: s.color }}
                activeDot={{ r: 4 }}
                connectNulls={false}
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </ResponsiveContainer>
      </div>
      <figcaption>
        <ul className="legend">
          <li>
            Started <strong>{number.format(started)}</strong>
          </li>
          {SERIES.map((s) => {
            const w = worst(buckets, s.key);
            return (
              <li key={s.key}>
                <span className={`swatch line l-${s.key}`} aria-hidden="true" />
                {s.label} <span className="muted">worst minute</span> <strong>{duration(w === null ? null : w[s.key])}</strong>
              </li>
            );
          })}
        </ul>
      </figcaption>
    </figure>
  );
}
