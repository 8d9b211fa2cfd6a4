// A recurring trigger's next runs on its page (pages/TriggerDetail.tsx), in
// its zone with the UTC offset of each, so daylight-saving changes show.
import { nextRuns } from "../lib/cron";
import { inZone, utc, utcOffset, viewerZone } from "../lib/format";

const RUNS = 10;

/**
 * From the pending instance on: a run cancelled on its own, before it, is
 * not coming (docs/concepts.md, recurring trigger states).
 */
export function NextRuns({ cronExpr, tz, pendingAt }: { cronExpr: string; tz: string; pendingAt: string | null }) {
  const from = Math.max(Date.now(), pendingAt === null ? 0 : Date.parse(pendingAt) - 1);
  const runs = nextRuns(cronExpr, tz, RUNS, new Date(from));
  return (
    <section className="card" aria-labelledby="runs-h">
      <h2 id="runs-h">Next {RUNS} runs</h2>
      {runs.length === 0 ? (
        <p className="muted">The next runs cannot be computed for this expression.</p>
      ) : (
        <div className="table-wrap">
          <table className="table compact nowrap" data-testid="next-runs">
            <thead>
              <tr>
                <th scope="col">In {tz}</th>
                <th scope="col">UTC offset</th>
                <th scope="col">UTC</th>
                {viewerZone !== tz && <th scope="col">Your time ({viewerZone})</th>}
              </tr>
            </thead>
            <tbody>
              {runs.map((d, i) => {
                const offset = utcOffset(d, tz);
                const before = i > 0 ? utcOffset(runs[i - 1]!, tz) : offset;
                return (
                  <tr key={d.getTime()} data-offset={offset}>
                    <td>{inZone(d, tz, true)}</td>
                    <td>
                      {offset}
                      {offset !== before && <span className="badge offset-change">changed from {before}</span>}
                    </td>
                    <td>{utc(d.toISOString())}</td>
                    {viewerZone !== tz && <td>{inZone(d, viewerZone, true)}</td>}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
