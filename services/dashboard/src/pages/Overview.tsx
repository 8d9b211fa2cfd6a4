// This month's quota use (GET /project), the last hour's attempts per
// minute by outcome (GET /stats), and the overview of GET /overview: the
// queue, held backlogs per tag, how late first attempts started, and what
// is due in the next hour; refreshed while the page is open.
import { lazy, type ReactNode, Suspense, useEffect, useState } from "react";
import { ErrorNote } from "../components/bits";
import { HeldCard, NextDue, QueueCard } from "../components/OverviewCards";
import { api, errorText } from "../lib/api";
import { number } from "../lib/format";
import { usePolling } from "../lib/polling";
import { Link } from "../lib/router";
import type { Overview as OverviewData, Project, StatsBucket } from "../lib/types";

/** Minutes of history the charts show. */
const WINDOW = 60;

// The charting library is about half of the dashboard's code: it is loaded
// with the first chart, in a chunk of its own, not by every page.
let chartsModule: Promise<typeof import("../components/charts")> | null = null;
const charts = () => (chartsModule ??= import("../components/charts"));
const OutcomeChart = lazy(() => charts().then((m) => ({ default: m.OutcomeChart })));
const LatenessChart = lazy(() => charts().then((m) => ({ default: m.LatenessChart })));
const UpcomingChart = lazy(() => charts().then((m) => ({ default: m.UpcomingChart })));

const chartSkeleton = <div className="skeleton chart-skeleton" aria-busy="true" />;

/** A chart once its data and its code are there, a placeholder until then. */
function ChartSlot({ ready, children }: { ready: boolean; children: () => ReactNode }) {
  return ready ? <Suspense fallback={chartSkeleton}>{children()}</Suspense> : chartSkeleton;
}

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
  const [overview, setOverview] = useState<OverviewData | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    document.title = "Overview · ttr";
  }, []);

  usePolling(async (background) => {
    try {
      const [p, s, o] = await Promise.all([api.project({ background }), api.stats(WINDOW, { background }), api.overview(WINDOW, { background })]);
      setProject(p.project);
      setBuckets(s.buckets);
      setOverview(o);
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
      <div className="grid-2">
        {overview ? <QueueCard overview={overview} /> : <div className="card skeleton" aria-busy="true" />}
        {overview ? <HeldCard overview={overview} /> : <div className="card skeleton" aria-busy="true" />}
      </div>
      <section className="card" aria-labelledby="chart-h">
        <h2 id="chart-h">Attempts per minute, last hour</h2>
        <ChartSlot ready={buckets !== null}>{() => <OutcomeChart buckets={buckets!} />}</ChartSlot>
      </section>
      <section className="card" aria-labelledby="lateness-h">
        <h2 id="lateness-h">Lateness of first attempts, last hour</h2>
        <p className="muted small">How long after its scheduled time each trigger's first attempt started, per minute it started in.</p>
        <ChartSlot ready={overview !== null}>{() => <LatenessChart buckets={overview!.lateness} />}</ChartSlot>
      </section>
      <section className="card" aria-labelledby="upcoming-h">
        <h2 id="upcoming-h">Due in the next hour</h2>
        <ChartSlot ready={overview !== null}>
          {() => <UpcomingChart upcoming={overview!.upcoming} countLimit={overview!.countLimit} />}
        </ChartSlot>
        <h3>Next due</h3>
        {overview && <NextDue next={overview.upcoming.next} />}
      </section>
    </section>
  );
}
