// This month's quota use (GET /project) and the last hour's attempts per
// minute by outcome (GET /stats), refreshed while the page is open.
import { useEffect, useState } from "react";
import { ErrorNote } from "../components/bits";
import { OutcomeChart } from "../components/OutcomeChart";
import { api, errorText } from "../lib/api";
import { number } from "../lib/format";
import { usePolling } from "../lib/polling";
import { Link } from "../lib/router";
import type { Project, StatsBucket } from "../lib/types";

function monthName(): string {
  return new Date().toLocaleDateString(undefined, { month: "long", year: "numeric", timeZone: "UTC" });
}

function Quota({ project }: { project: Project }) {
  const used = project.usedThisMonth;
  const quota = project.monthlyQuota;
  const share = quota > 0 ? Math.min(1, used / quota) : 1;
  const level = share >= 0.9 ? "high" : share >= 0.75 ? "mid" : "low";
  const percent = used > 0 && share < 0.001 ? "under 0.1%" : `${(share * 100).toFixed(1)}%`;
  // Any use at all shows as a sliver on the bar.
  const fill = used > 0 ? Math.max(share * 100, 0.6) : 0;
  return (
    <section className="card" aria-labelledby="quota-h">
      <h2 id="quota-h">Quota this month</h2>
      <p className="big-number">
        {number.format(used)} <span className="muted">of {number.format(quota)}</span>
      </p>
      {/* The sentence below says the same in words. */}
      <div className={`meter ${level}`} aria-hidden="true">
        <div className="meter-fill" style={{ width: `${fill}%` }} />
      </div>
      <p className="muted small">
        {percent} used · {number.format(Math.max(0, quota - used))} triggers left in {monthName()} (UTC). Retries and
        replays do not use quota.
      </p>
    </section>
  );
}

export function Overview() {
  const [project, setProject] = useState<Project | null>(null);
  const [buckets, setBuckets] = useState<StatsBucket[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    document.title = "Overview · ttr";
  }, []);

  usePolling(async () => {
    try {
      const [p, s] = await Promise.all([api.project(), api.stats(60)]);
      setProject(p.project);
      setBuckets(s.buckets);
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, []);

  return (
    <section aria-labelledby="page-h">
      <div className="page-head">
        <h1 id="page-h">{project ? project.name : "Overview"}</h1>
      </div>
      <ErrorNote error={error} />
      <div className="grid-2">
        {project ? <Quota project={project} /> : <div className="card skeleton" aria-busy="true" />}
        <section className="card" aria-labelledby="links-h">
          <h2 id="links-h">Go to</h2>
          <ul className="quick-links">
            <li>
              <Link to="/triggers">All triggers</Link>
            </li>
            <li>
              <Link to="/triggers?status=retrying">Retrying now</Link>
            </li>
            <li>
              <Link to="/triggers?kind=generator">Recurring triggers</Link>
            </li>
            <li>
              <Link to="/dead-letters">Dead letters</Link>
            </li>
            <li>
              <Link to="/tag-policies">Tag policies</Link>
            </li>
          </ul>
        </section>
      </div>
      <section className="card" aria-labelledby="chart-h">
        <h2 id="chart-h">Attempts per minute, last hour</h2>
        {buckets ? <OutcomeChart buckets={buckets} /> : <div className="skeleton chart-skeleton" aria-busy="true" />}
      </section>
    </section>
  );
}
