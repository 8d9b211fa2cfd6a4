// Dead letters (GET /executions?deadLetterOnly=true): failed attempts the
// service decided not to retry, newest first, each with its trigger and a
// Replay now. The list refreshes while open. Each trigger's method, URL and
// status are looked up once, and again on each refresh only while the
// trigger is still moving (after a replay), so a page of 50 costs one call.
// Above the list, replay or discard many at once (components/BulkDeadLetters.tsx).
import { useCallback, useEffect, useRef, useState } from "react";
import { BulkDeadLetters } from "../components/BulkDeadLetters";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ActionError, ErrorNote, Notice, StatusBadge, Time } from "../components/bits";
import { api, errorText } from "../lib/api";
import { visibleTitle } from "../lib/format";
import { useLoadOrder } from "../lib/load-order";
import { REFRESH_MS, usePolling } from "../lib/polling";
import { refreshedRows } from "../lib/refreshed-rows";
import { Link } from "../lib/router";
import type { Execution, Trigger } from "../lib/types";

const PAGE = 50;

function Outcome({ e }: { e: Execution }) {
  if (e.responseStatus !== null) return <span className="code code-fail">HTTP {e.responseStatus}</span>;
  return <span className="error-cell">{e.errorMessage ?? "No response"}</span>;
}

export function DeadLetters() {
  const [rows, setRows] = useState<Execution[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [triggers, setTriggers] = useState<ReadonlyMap<string, Trigger>>(new Map());
  // A failed load is cleared by the next refresh that works; the API's
  // refusal of a Replay now stays until dismissed or replaced by the next
  // action's outcome, so the refresh every few seconds cannot wipe it.
  const [loadError, setLoadError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [replaying, setReplaying] = useState<Execution | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const shown = useRef(0);
  /** bumped by each page Load more adds: a refresh sent before it must not put its older cursor back */
  const more = useRef(0);
  const asked = useRef(new Set<string>());
  /** the list's refreshes, and each trigger's lookups, in the order they were sent */
  const order = useLoadOrder();
  const known = useRef<ReadonlyMap<string, Trigger>>(triggers);
  shown.current = rows?.length ?? 0;
  known.current = triggers;

  useEffect(() => {
    document.title = "Dead letters · ttr";
  }, []);

  /** Method, URL and status of the triggers on screen: new ones, and those not yet settled again. */
  const lookUp = useCallback(async (ids: string[], force = false, background = false) => {
    const settled = (id: string) => {
      const status = known.current.get(id)?.status;
      return status === undefined || status === "completed" || status === "cancelled";
    };
    const wanted = [...new Set(ids)].filter((id) => force || !asked.current.has(id) || !settled(id));
    for (const id of wanted) asked.current.add(id);
    const found = await Promise.all(
      wanted.map((id) => {
        const fresh = order.start(id);
        return api.trigger(id, { background }).then((r) => (fresh() ? r.trigger : null), () => null);
      }),
    );
    setTriggers((old) => {
      const next = new Map(old);
      for (const t of found) if (t) next.set(t.id, t);
      return next;
    });
  }, [order]);

  const refresh = useCallback(async (background = false) => {
    const limit = Math.min(Math.max(shown.current, PAGE), 500);
    const pages = more.current;
    const fresh = order.start();
    try {
      const page = await api.deadLetters(limit, null, { background });
      if (!fresh()) return;
      // Rows beyond what one refresh can reload (or loaded while it was out) stay as they were.
      setRows((old) => refreshedRows(old, page.executions, limit, page.nextCursor === null));
      if (shown.current <= 500 && more.current === pages) setCursor(page.nextCursor);
      setLoadError(null);
      await lookUp(page.executions.map((e) => e.triggerId), false, background);
    } catch (e) {
      if (fresh()) setLoadError(errorText(e));
    }
  }, [lookUp, order]);

  usePolling(refresh, [refresh]);

  const loadMore = async () => {
    if (cursor === null) return;
    setLoadingMore(true);
    try {
      const page = await api.deadLetters(PAGE, cursor);
      more.current++;
      setRows((old) => {
        const have = new Set((old ?? []).map((e) => e.id));
        return [...(old ?? []), ...page.executions.filter((e) => !have.has(e.id))];
      });
      setCursor(page.nextCursor);
      await lookUp(page.executions.map((e) => e.triggerId));
    } catch (e) {
      setLoadError(errorText(e));
    } finally {
      setLoadingMore(false);
    }
  };

  const replay = async (e: Execution) => {
    setNotice(null);
    setActionError(null);
    try {
      const { execution } = await api.replay(e.triggerId);
      setNotice(`Replay now: attempt ${execution.attemptNumber} of the trigger is queued.`);
    } catch (err) {
      setActionError(`Replay now failed: ${errorText(err)}`);
    }
    await lookUp([e.triggerId], true);
  };

  /** After a bulk action: its message, the list again, and every trigger on screen looked up afresh. */
  const bulkDone = async (message: string) => {
    setActionError(null);
    setNotice(message);
    await refresh();
    await lookUp([...known.current.keys()], true);
  };

  return (
    <section aria-labelledby="page-h">
      <div className="page-head">
        <h1 id="page-h">Dead letters</h1>
        <p className="muted small">
          Failed attempts that were not retried. Refreshes every {REFRESH_MS / 1000} s.
        </p>
      </div>
      <Notice text={notice} />
      <ActionError error={actionError} onDismiss={() => setActionError(null)} />
      <ErrorNote error={loadError} />
      <BulkDeadLetters onDone={bulkDone} />
      {rows === null ? (
        <p className="muted">Loading…</p>
      ) : rows.length === 0 ? (
        <p className="empty card">No dead letters. Every failed attempt was retried or there were none.</p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="table cards">
              <thead>
                <tr>
                  <th scope="col">Failed</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Attempt</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Trigger status</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((e) => {
                  const t = triggers.get(e.triggerId);
                  return (
                    <tr key={e.id} data-testid="dead-letter-row" data-trigger={e.triggerId}>
                      <td data-label="Failed">
                        <Time iso={e.completedAt ?? e.plannedAt} />
                      </td>
                      <td data-label="Trigger" className="trigger-cell">
                        <Link to={`/triggers/${e.triggerId}`} className="row-link">
                          {t ? (
                            (visibleTitle(t.title) ?? (
                              <>
                                <span className="method">{t.method}</span> {t.url}
                              </>
                            ))
                          ) : (
                            <code>{e.triggerId}</code>
                          )}
                        </Link>
                      </td>
                      <td data-label="Attempt" className="num">
                        {e.attemptNumber} <span className="muted small">({e.triggeredBy})</span>
                      </td>
                      <td data-label="Outcome">
                        <Outcome e={e} />
                      </td>
                      <td data-label="Trigger status">{t ? <StatusBadge kind={t.kind} status={t.status} /> : <span className="muted">—</span>}</td>
                      <td>
                        <button
                          type="button"
                          className="button small"
                          disabled={t !== undefined && t.status !== "completed"}
                          onClick={() => setReplaying(e)}
                        >
                          Replay now
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {cursor !== null && (
            <div className="list-foot">
              <button type="button" className="button" onClick={loadMore} disabled={loadingMore}>
                {loadingMore ? "Loading…" : "Load more"}
              </button>
            </div>
          )}
        </>
      )}
      {replaying && (
        <ConfirmDialog
          open
          title="Replay this trigger now?"
          confirmLabel="Replay now"
          onConfirm={() => replay(replaying)}
          onClose={() => setReplaying(null)}
        >
          <p>The stored request is sent again at once as a new attempt (triggered by replay). The target may receive it twice.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
