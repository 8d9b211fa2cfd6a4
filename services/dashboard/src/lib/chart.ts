// What the overview's charts share: colours, how times and durations read
// on an axis, and how a capped count reads. The charts are recharts (SVG);
// colours are given as SVG attributes, which the page's
// Content-Security-Policy allows, and recharts sizes its elements through
// the DOM's style properties, which the policy allows too (only inline
// <style> and style="" markup are refused).
import { number } from "./format";

export const COLORS = {
  success: "#2e9d5b",
  http: "#e08a00",
  network: "#c9372c",
  dead: "#141a2e",
  p50: "#3343c9",
  p99: "#c26a00",
  max: "#8a8f98",
  due: "#3343c9",
  grid: "#e6e8ec",
  axis: "#57606a",
} as const;

export const AXIS_TICK = { fontSize: 11, fill: COLORS.axis } as const;

const hhmmFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });

/** "14:05" in the viewer's zone. */
export const hhmm = (iso: string): string => hhmmFormat.format(new Date(iso));

/** A duration in milliseconds for people: "850 ms", "1.5 s", "2.3 min", "1.2 h". */
export function duration(ms: number | null): string {
  if (ms === null) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** Five even axis ticks from 0 to a rounded-up maximum at or above `peak`. */
export function niceTicks(peak: number): number[] {
  let max = 4;
  if (peak > 4) {
    const step = 10 ** Math.floor(Math.log10(peak / 4));
    max = [1, 2, 2.5, 5, 10].map((m) => step * m * 4).find((m) => m >= peak) ?? peak;
  }
  return [0, 1, 2, 3, 4].map((i) => (max / 4) * i);
}

/** A count that stops at `limit` (GET /overview): "10,000+" then. */
export function capped(n: number, limit: number): string {
  return n >= limit ? `${number.format(limit)}+` : number.format(n);
}
