// Schedules a firing plan through the api instead of SQL: every second, one
// POST /bulk with the triggers due LEAD_MS later, so that the api stores
// triggers at the rate they fire and its CPU is inside the CPU per fire.
// After the plan's last second it goes on with as many triggers per second
// (sent to `/w/`, after the measured window), so the api works all through
// the window, not only during its first part.
import { sleep } from "./stats.mjs";

/** How long before its second a trigger is scheduled. */
export const LEAD_MS = 2000;

/**
 * Posts the plan's triggers (and the warm-up's, and a tail) in one /bulk per
 * due second. Resolves when the last is posted; rejects on any answer but 200.
 * @param {{base: string, apiKey: string, sinkBase: string, t0: number, rate: number, seconds: number, warm: {count: number, ms: number}}} o
 */
export async function scheduleThroughApi(o) {
  const warmSeconds = o.warm.ms / 1000;
  const tailSeconds = Math.ceil(LEAD_MS / 1000);
  for (let s = -warmSeconds; s < o.seconds + tailSeconds; s++) {
    const due = o.t0 + s * 1000;
    await sleep(due - LEAD_MS - Date.now());
    const upserts = [];
    for (let i = 0; i < o.rate; i++) {
      // measured triggers at /t/<n>; the warm-up and the tail at /w/<n>
      const path = s >= 0 && s < o.seconds ? `/t/${s * o.rate + i}` : `/w/${(s + warmSeconds) * o.rate + i}`;
      upserts.push({ url: `${o.sinkBase}${path}`, scheduledAt: new Date(due).toISOString() });
    }
    const res = await fetch(`${o.base}/bulk`, { method: "POST", headers: { "ttr-api-key": o.apiKey, "content-type": "application/json" }, body: JSON.stringify({ upserts }) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`POST /bulk for ${new Date(due).toISOString()}: ${res.status} ${text.slice(0, 300)}`);
  }
}
