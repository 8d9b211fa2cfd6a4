// Attempts per minute by outcome (GET /stats) as stacked bars in inline SVG.
// Dead letters are failures too, so they are marked on top of their bar
// rather than stacked. The picture's title says the totals in words for
// screen readers; the legend shows them to everyone.
import { useEffect, useId, useRef, useState } from "react";
import type { StatsBucket } from "../lib/types";

const SERIES = [
  { key: "success", label: "Success", className: "s-success" },
  { key: "httpFailure", label: "HTTP failure", className: "s-http" },
  { key: "networkFailure", label: "Network failure", className: "s-network" },
] as const;

const H = 220;
const PAD = { top: 12, right: 12, bottom: 28, left: 40 };

const hhmm = (iso: string) => new Date(iso).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });

/** A rounded-up axis maximum with 4 even steps. */
function niceMax(n: number): number {
  if (n <= 4) return 4;
  const step = 10 ** Math.floor(Math.log10(n / 4));
  for (const m of [1, 2, 2.5, 5, 10]) if (step * m * 4 >= n) return step * m * 4;
  return n;
}

/** The element's width in CSS pixels, so the chart is drawn 1:1 and its labels keep their size. */
function useWidth<T extends HTMLElement>(fallback: number) {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.max(280, Math.floor(entry.contentRect.width)));
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

export function OutcomeChart({ buckets }: { buckets: StatsBucket[] }) {
  const titleId = useId();
  const [box, W] = useWidth<HTMLElement>(720);
  const totals = { success: 0, httpFailure: 0, networkFailure: 0, deadLetters: 0 };
  let peak = 0;
  for (const b of buckets) {
    totals.success += b.success;
    totals.httpFailure += b.httpFailure;
    totals.networkFailure += b.networkFailure;
    totals.deadLetters += b.deadLetters;
    peak = Math.max(peak, b.success + b.httpFailure + b.networkFailure);
  }
  const max = niceMax(peak);
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const slot = innerW / Math.max(buckets.length, 1);
  const barW = Math.max(1, slot * 0.72);
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  // a time label about every 90 px, on whole multiples of 5 minutes
  const labelEvery = Math.max(5, Math.ceil((90 / slot) / 5) * 5);
  const summary =
    `Attempts per minute over the last ${buckets.length} minutes: ${totals.success} successful, ` +
    `${totals.httpFailure} HTTP failures, ${totals.networkFailure} network failures, ${totals.deadLetters} dead letters.`;

  return (
    <figure className="chart" ref={box}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={titleId}>
        <title id={titleId}>{summary}</title>
        {[0, 1, 2, 3, 4].map((i) => {
          const v = (max / 4) * i;
          return (
            <g key={i} className="grid">
              <line x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} />
              <text x={PAD.left - 6} y={y(v)} dy="0.32em" textAnchor="end">
                {v}
              </text>
            </g>
          );
        })}
        {buckets.map((b, i) => {
          const x = PAD.left + i * slot + (slot - barW) / 2;
          let base = 0;
          return (
            <g key={b.minute}>
              {SERIES.map((s) => {
                const v = b[s.key];
                if (v === 0) return null;
                const rect = <rect key={s.key} className={s.className} x={x} width={barW} y={y(base + v)} height={y(base) - y(base + v)} />;
                base += v;
                return rect;
              })}
              {b.deadLetters > 0 && <circle className="s-dead" cx={x + barW / 2} cy={y(base) - 5} r={3} />}
            </g>
          );
        })}
        {buckets.map((b, i) =>
          i % labelEvery === 0 ? (
            <text key={`t${b.minute}`} className="axis" x={PAD.left + i * slot + slot / 2} y={H - 8} textAnchor="middle">
              {hhmm(b.minute)}
            </text>
          ) : null,
        )}
      </svg>
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
