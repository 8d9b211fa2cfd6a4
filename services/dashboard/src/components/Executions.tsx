// A trigger's executions (docs/concepts.md): one row per attempt, its
// response headers and body behind a disclosure button. Everything stored is
// rendered as text. Times are compact here: in the viewer's zone and in UTC,
// the date left out when it is today.
import { Fragment, useState } from "react";
import { bytes } from "../lib/format";
import type { Execution } from "../lib/types";
import { Body, HeaderList, Time } from "./bits";

/** The outcome of a dead letter's notification (docs/delivery-extras.md), when its policy asked for one. */
function Notification({ e }: { e: Execution }) {
  const n = e.notification;
  if (!n) return null;
  const tries = `${n.attempts} ${n.attempts === 1 ? "try" : "tries"}`;
  const text = n.status === "sent" ? `Notified (${tries})` : n.status === "failed" ? `Notification failed after ${tries}` : `Notifying (${tries} so far)`;
  return (
    <span className={`notify notify-${n.status}`} data-testid="notification" title={n.error ?? undefined}>
      {text}
      {n.error !== null && n.status !== "sent" && <span className="muted small">: {n.error}</span>}
    </span>
  );
}

function ResponseStatus({ e }: { e: Execution }) {
  if (e.responseStatus === null) return <span className="muted">—</span>;
  const ok = e.responseStatus >= 200 && e.responseStatus < 300;
  return <span className={`code ${ok ? "code-ok" : "code-fail"}`}>{e.responseStatus}</span>;
}

export function Executions({ executions }: { executions: Execution[] }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  if (executions.length === 0) return <p className="muted">No attempts yet.</p>;
  return (
    <div className="table-wrap">
      <table className="table executions">
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Triggered by</th>
            <th scope="col">Status</th>
            <th scope="col">Planned</th>
            <th scope="col">Started</th>
            <th scope="col">Completed</th>
            <th scope="col">Response</th>
            <th scope="col">Size</th>
            <th scope="col">Error</th>
            <th scope="col">Dead letter</th>
            <th scope="col">
              <span className="visually-hidden">Details</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {executions.map((e) => {
            const expanded = open.has(e.id);
            const panelId = `exec-${e.id}`;
            const hasResponse = e.responseStatus !== null || e.responseHeaders !== null || e.responseBody !== null;
            return (
              <Fragment key={e.id}>
                <tr data-testid="execution-row" data-attempt={e.attemptNumber}>
                  <td className="num">{e.attemptNumber}</td>
                  <td>{e.triggeredBy}</td>
                  <td>
                    <span className={`exec-status exec-${e.status}`}>{e.status}</span>
                  </td>
                  <td>
                    <Time iso={e.plannedAt} compact />
                  </td>
                  <td>
                    <Time iso={e.startedAt} compact />
                  </td>
                  <td>
                    <Time iso={e.completedAt} compact />
                  </td>
                  <td>
                    <ResponseStatus e={e} />
                  </td>
                  <td className="num">{bytes(e.responseSize)}</td>
                  <td className="error-cell">{e.errorMessage ?? <span className="muted">—</span>}</td>
                  <td>
                    {e.isDeadLetter ? <span className="badge dead">Dead letter</span> : <span className="muted">No</span>} <Notification e={e} />
                  </td>
                  <td>
                    {hasResponse && (
                      <button
                        type="button"
                        className="button small"
                        aria-expanded={expanded}
                        aria-controls={panelId}
                        onClick={() => toggle(e.id)}
                      >
                        {expanded ? "Hide response" : "Show response"}
                        <span className="visually-hidden"> of attempt {e.attemptNumber}</span>
                      </button>
                    )}
                  </td>
                </tr>
                {hasResponse && (
                  <tr className="response-row" id={panelId} hidden={!expanded}>
                    <td colSpan={11}>
                      <div className="response">
                        <div>
                          <h4>Response headers</h4>
                          <HeaderList headers={e.responseHeaders} empty="No response headers" />
                        </div>
                        <div>
                          <h4>Response body</h4>
                          <Body text={e.responseBody} empty="No response body" />
                          {e.responseSize !== null && e.responseSize > 10240 && (
                            <p className="muted small">Only the first 10 KB of {bytes(e.responseSize)} was kept.</p>
                          )}
                        </div>
                      </div>
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
