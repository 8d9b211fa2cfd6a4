// Triggers due in the next hour (GET /overview), counted per slot of a few
// minutes, as bars (recharts). The picture's accessible name says the
// figures in words.
import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { AXIS_TICK, COLORS, capped, hhmm } from "../lib/chart";
import { number } from "../lib/format";
import type { Overview } from "../lib/types";

interface Row {
  label: string;
  due: number;
}

export function UpcomingChart({ upcoming, countLimit }: { upcoming: Overview["upcoming"]; countLimit: number }) {
  const rows: Row[] = upcoming.slots.map((s) => ({ label: hhmm(s.from), due: s.due }));
  const total = upcoming.slots.reduce((n, s) => n + s.due, 0);
  // A slot at the limit holds at least that many, so the total is a lower bound then.
  const totalText = `${number.format(total)}${upcoming.slots.some((s) => s.due >= countLimit) ? "+" : ""}`;
  const busiest = upcoming.slots.reduce((a, b) => (b.due > a.due ? b : a), upcoming.slots[0] ?? { from: "", due: 0 });
  const summary =
    total === 0
      ? "Triggers due in the next hour: none."
      : `Triggers due in the next hour: ${totalText} in all; the most, ${capped(busiest.due, countLimit)}, ` +
        `in the ${upcoming.slotMinutes} minutes from ${hhmm(busiest.from)}.`;
  return (
    <figure className="chart">
      <div className="chart-box" role="img" aria-label={summary} data-testid="upcoming-chart">
        <ResponsiveContainer width="100%" height={180}>
          <BarChart data={rows} margin={{ top: 12, right: 12, bottom: 0, left: -12 }} accessibilityLayer={false}>
            <CartesianGrid vertical={false} stroke={COLORS.grid} />
            <XAxis dataKey="label" tick={AXIS_TICK} tickLine={false} />
            <YAxis allowDecimals={false} tick={AXIS_TICK} tickLine={false} axisLine={false} />
            <Tooltip isAnimationActive={false} formatter={(v) => [capped(Number(v), countLimit), "Due"]} cursor={{ fill: "rgba(51, 67, 201, 0.06)" }} />
            <Bar dataKey="due" name="Due" fill={COLORS.due} isAnimationActive={false} maxBarSize={36} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="muted small">
        {totalText} due in the next hour, per {upcoming.slotMinutes} minutes. A recurring trigger counts with its next run only.
      </figcaption>
    </figure>
  );
}
