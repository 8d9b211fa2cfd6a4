// The overview's figures that are not charts (GET /overview): the queue and
// what runs, the backlog tag policies hold per tag, and the next triggers
// due. Counts at the API's limit read "10,000+".
import { capped } from "../lib/chart";
import { fromNow, visibleTitle } from "../lib/format";
import { Link } from "../lib/router";
import type { DueTrigger, Overview } from "../lib/types";
import { Tags, Time } from "./bits";

/** GET /overview lists the held backlogs of at most this many tags: a full list may leave some out. */
const HELD_TAGS_LISTED = 50;

export function QueueCard({ overview }: { overview: Overview }) {
  const { queue, held, countLimit } = overview;
  const heldTotal = held.reduce((n, h) => n + h.held, 0);
  const heldCapped = held.some((h) => h.held >= countLimit) || held.length >= HELD_TAGS_LISTED;
  return (
    <section className="card" aria-labelledby="queue-h">
      <h2 id="queue-h">Queue</h2>
      <dl className="figures">
        <div data-testid="queue-waiting">
          <dt>In the queue, not started</dt>
          <dd>{capped(queue.waiting, countLimit)}</dd>
        </div>
        <div data-testid="queue-running">
          <dt>Running</dt>
          <dd>{capped(queue.running, countLimit)}</dd>
        </div>
        <div data-testid="queue-held">
          <dt>Held by tag policies</dt>
          <dd>
            {capped(heldTotal, countLimit)}
            {heldCapped && heldTotal < countLimit ? "+" : ""}
          </dd>
        </div>
      </dl>
      <p className="muted small">
        {queue.oldestPlannedAt === null ? (
          "Nothing waits in the queue."
        ) : (
          <>
            The oldest in the queue was due <Time iso={queue.oldestPlannedAt}>{fromNow(queue.oldestPlannedAt)}</Time>.
          </>
        )}
      </p>
    </section>
  );
}

export function HeldCard({ overview }: { overview: Overview }) {
  const { held, countLimit } = overview;
  return (
    <section className="card" aria-labelledby="held-h">
      <h2 id="held-h">Held back, per tag</h2>
      {held.length === 0 ? (
        <p className="muted">No tag policy holds anything back.</p>
      ) : (
        <div className="table-wrap">
          <table className="table compact" data-testid="held-table">
            <thead>
              <tr>
                <th scope="col">Tag</th>
                <th scope="col" className="num">
                  Held
                </th>
                <th scope="col">Oldest was due</th>
              </tr>
            </thead>
            <tbody>
              {held.map((h) => (
                <tr key={h.tag} data-testid="held-row" data-tag={h.tag}>
                  <td>
                    <Link to={`/triggers?tag=${encodeURIComponent(h.tag)}&status=queued`}>{h.tag}</Link>
                  </td>
                  <td className="num">{capped(h.held, countLimit)}</td>
                  <td>
                    <Time iso={h.oldestPlannedAt}>{fromNow(h.oldestPlannedAt)}</Time>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function NextDue({ next }: { next: DueTrigger[] }) {
  if (next.length === 0) return <p className="muted">Nothing is scheduled.</p>;
  return (
    <div className="table-wrap">
      <table className="table compact" data-testid="next-due">
        <caption className="visually-hidden">The next triggers due</caption>
        <thead>
          <tr>
            <th scope="col">Due</th>
            <th scope="col">Trigger</th>
            <th scope="col">Tags</th>
          </tr>
        </thead>
        <tbody>
          {next.map((t) => (
            <tr key={t.id} data-testid="due-row" data-id={t.id}>
              <td>
                <Time iso={t.scheduledAt} /> <span className="muted small">{fromNow(t.scheduledAt)}</span>
              </td>
              <td className="trigger-cell">
                <div>
                  <Link to={`/triggers/${t.id}`} className="row-link">
                    {visibleTitle(t.title) ?? (
                      <>
                        <span className="method">{t.method}</span> {t.url}
                      </>
                    )}
                  </Link>
                  {visibleTitle(t.title) !== null && (
                    <span className="muted small url">
                      <span className="method">{t.method}</span> {t.url}
                    </span>
                  )}
                  {t.customKey !== null && <span className="muted small">key {t.customKey}</span>}
                  {t.generatorId !== null && <span className="muted small">next run of a recurring trigger</span>}
                </div>
              </td>
              <td>
                <Tags tags={t.tags} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
