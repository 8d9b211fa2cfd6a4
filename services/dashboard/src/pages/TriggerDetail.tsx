// One trigger (GET /triggers/<id>): the stored request, its schedule in UTC
// and the viewer's zone, its executions, and Replay now / Retry now where
// docs/concepts.md allows them (completed: both; retrying: Retry now). A recurring
// trigger shows its cron in words, the next ten runs (with the zone's UTC
// offset, so daylight-saving changes show) and its instances. Edit and
// Cancel trigger where they apply (components/TriggerManage.tsx).
import { type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { Executions } from "../components/Executions";
import { NextRuns } from "../components/NextRuns";
import { TriggerEditor } from "../components/TriggerEditor";
import { bodyProblem, canCancel, canEdit, TriggerManage } from "../components/TriggerManage";
import { ActionError, Body, ErrorNote, HeaderList, Notice, StatusBadge, Tags, Time } from "../components/bits";
import { ApiError, api, errorText } from "../lib/api";
import { describeCron } from "../lib/cron";
import { flash, takeFlash } from "../lib/flash";
import { focusOrMain } from "../lib/focus";
import { fromNow, inZone, KIND_LABELS, shownTitle, statusLabel, utc, viewerZone } from "../lib/format";
import { useLoadOrder } from "../lib/load-order";
import { usePolling } from "../lib/polling";
import { Link, navigate } from "../lib/router";
import { useTriggerList } from "../lib/trigger-list";
import type { Execution, ScheduleResult, Trigger } from "../lib/types";
import { TriggerRows } from "./Triggers";

type Action = "replay" | "retry";

const ACTIONS: Record<Action, { label: string; title: string; text: string }> = {
  replay: {
    label: "Replay now",
    title: "Replay this trigger now?",
    text: "The stored request is sent again at once as a new attempt (triggered by replay). The target may receive it twice.",
  },
  retry: {
    label: "Retry now",
    title: "Retry this trigger now?",
    text: "The stored request is sent at once as a new attempt (triggered by retry). A pending retry is sent now instead of at its planned time.",
  },
};

function allowed(t: Trigger): Record<Action, boolean> {
  const job = t.kind === "job";
  return { replay: job && t.status === "completed", retry: job && (t.status === "completed" || t.status === "retrying") };
}

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="kv">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Schedule({ t }: { t: Trigger }) {
  if (t.kind === "job") {
    return (
      <dl className="kvs">
        <Field label="Scheduled (UTC)">
          <time dateTime={t.scheduledAt ?? undefined}>{utc(t.scheduledAt)}</time>
        </Field>
        <Field label={`Your time (${viewerZone})`}>
          {inZone(t.scheduledAt)} <span className="muted">· {fromNow(t.scheduledAt)}</span>
        </Field>
      </dl>
    );
  }
  const tz = t.tz ?? "UTC";
  return (
    <dl className="kvs">
      <Field label="Runs">{t.cronExpr ? describeCron(t.cronExpr, tz) : "—"}</Field>
      <Field label="Cron expression">
        <code>{t.cronExpr}</code>
      </Field>
      <Field label="Time zone">{tz}</Field>
      {t.status === "cancelled" && <Field label="Next runs">None: this recurring trigger is cancelled.</Field>}
    </dl>
  );
}

/**
 * Why an open Edit form can no longer be saved: the trigger moved on (was
 * sent, cancelled) while it was being edited. The form stays, with what was
 * typed, rather than vanishing with it.
 */
function editGone(t: Trigger): string {
  const why = t.kind !== "job" ? "" : t.status === "queued" ? " (it is about to be sent)" : ["running", "retrying", "completed"].includes(t.status) ? " (it was sent)" : "";
  return `While you were editing, this trigger became ${statusLabel(t.kind, t.status)}${why}: it can no longer be edited, and Save changes would be refused. What you typed stays below until you press Discard.`;
}

function Instances({ generatorId }: { generatorId: string }) {
  const list = useTriggerList({ generatorId });
  return (
    <section className="card" aria-labelledby="instances-h">
      <h2 id="instances-h">Instances</h2>
      <p className="muted small">Each run of this recurring trigger is an instance with its own attempts. Newest first.</p>
      <ErrorNote error={list.error} />
      {list.rows === null ? (
        <p className="muted">Loading…</p>
      ) : list.rows.length === 0 ? (
        <p className="muted">No instances.</p>
      ) : (
        <>
          <TriggerRows triggers={list.rows} showKind={false} />
          {list.cursor !== null && (
            <div className="list-foot">
              <button type="button" className="button" onClick={list.loadMore} disabled={list.loadingMore}>
                {list.loadingMore ? "Loading…" : "Load more instances"}
              </button>
            </div>
          )}
        </>
      )}
    </section>
  );
}

export function TriggerDetail({ id }: { id: string }) {
  const [data, setData] = useState<{ trigger: Trigger; executions: Execution[] } | null>(null);
  const [missing, setMissing] = useState(false);
  // Two kinds of error, kept apart: a failed load is cleared by the next
  // refresh that works, while the API's refusal of an action (Cancel
  // trigger, Replay now, Retry now) stays until dismissed or replaced by
  // the next action's outcome, so a refresh right after it cannot wipe it.
  const [loadError, setLoadError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [confirming, setConfirming] = useState<Action | null>(null);
  const [editing, setEditing] = useState(false);
  /** bumped by an edit or a cancel, so the instance list reloads at once */
  const [version, setVersion] = useState(0);
  const editButton = useRef<HTMLButtonElement>(null);

  const order = useLoadOrder();
  const load = useCallback(async (background = false) => {
    const fresh = order.start();
    try {
      const answer = await api.trigger(id, { background });
      if (!fresh()) return;
      setData(answer);
      setLoadError(null);
    } catch (e) {
      if (!fresh()) return;
      if (e instanceof ApiError && e.status === 404) setMissing(true);
      else setLoadError(errorText(e));
    }
  }, [id, order]);

  usePolling(load, [load]);

  // What the page that led here had to say ("Trigger created.").
  useEffect(() => {
    const text = takeFlash();
    if (text !== null) setNotice(text);
  }, []);

  const t = data?.trigger;
  useEffect(() => {
    document.title = `${t ? (shownTitle(t) ?? `${t.method} ${t.url}`) : "Trigger"} · ttr`;
  }, [t]);

  const act = async (action: Action) => {
    setNotice(null);
    setActionError(null);
    try {
      const { execution } = action === "replay" ? await api.replay(id) : await api.retry(id);
      setNotice(`${ACTIONS[action].label}: attempt ${execution.attemptNumber} is queued.`);
    } catch (e) {
      setActionError(`${ACTIONS[action].label} failed: ${errorText(e)}`);
    }
    await load();
  };

  const saved = async (r: ScheduleResult) => {
    setEditing(false);
    setActionError(null);
    // As on /schedule, a custom key held by another pending trigger makes that one the trigger edited.
    if (r.triggerId !== id) {
      flash("Saved to the pending trigger holding this custom key, which was updated instead.");
      navigate(`/triggers/${r.triggerId}`);
      return;
    }
    setVersion((v) => v + 1);
    setNotice(r.kind === "generator" ? `Changes saved. The next run is ${utc(r.scheduledAt)}.` : `Changes saved. It is sent at ${utc(r.scheduledAt)}.`);
    await load();
    requestAnimationFrame(() => focusOrMain(editButton.current));
  };

  const cancelled = async (problem: string | null) => {
    setNotice(problem === null ? "Trigger cancelled. It will not be sent." : null);
    setActionError(problem === null ? null : `Cancelling failed: ${problem}`);
    // A refused cancel leaves an open Edit form as it is, with what was typed.
    if (problem === null) setEditing(false);
    setVersion((v) => v + 1);
    await load();
  };

  if (missing) {
    return (
      <section>
        <h1>Trigger not found</h1>
        <p>
          No trigger with ID <code>{id}</code> in this project. <Link to="/triggers">Back to triggers</Link>
        </p>
      </section>
    );
  }
  if (!data || !t) {
    return (
      <section aria-busy="true">
        <p className="muted">Loading trigger…</p>
        <ErrorNote error={loadError} />
      </section>
    );
  }

  const can = allowed(t);
  const heading = shownTitle(t) ?? `${t.method} ${t.url}`;
  return (
    <section aria-labelledby="page-h" className="detail">
      <p className="crumbs">
        <Link to="/triggers">Triggers</Link>
        {t.generatorId && (
          <>
            {" / "}
            <Link to={`/triggers/${t.generatorId}`}>Recurring trigger</Link>
          </>
        )}
      </p>
      <div className="page-head detail-head">
        <div>
          <h1 id="page-h" className="break verbatim">
            {heading}
          </h1>
          <p className="muted">
            <StatusBadge kind={t.kind} status={t.status} /> {t.generatorId ? "Instance of a recurring trigger" : KIND_LABELS[t.kind]}
          </p>
        </div>
        {(canEdit(t) || canCancel(t)) && <TriggerManage trigger={t} editing={editing} editRef={editButton} onEdit={() => setEditing(true)} onCancelled={cancelled} />}
        {t.kind === "job" && (
          <div className="actions">
            {(["replay", "retry"] as const).map((a) => (
              <button
                key={a}
                type="button"
                className={a === "replay" ? "button primary" : "button"}
                disabled={!can[a]}
                aria-describedby="actions-help"
                onClick={() => setConfirming(a)}
              >
                {ACTIONS[a].label}
              </button>
            ))}
            <p id="actions-help" className="muted small actions-help">
              {can.replay
                ? "Sends the stored request again."
                : can.retry
                  ? "Retry now sends the pending retry at once."
                  : "Available once the trigger has completed (Retry now also while retrying)."}
            </p>
          </div>
        )}
      </div>

      <Notice text={notice} />
      <ActionError error={actionError} onDismiss={() => setActionError(null)} />
      <ErrorNote error={loadError} />

      {editing && !canEdit(t) && (
        <p className="note error" role="alert" data-testid="edit-gone">
          {editGone(t)}
        </p>
      )}
      {editing && bodyProblem(t) === null && (
        <TriggerEditor
          editing={{ mode: "edit", trigger: t }}
          onSaved={saved}
          onCancel={() => {
            setEditing(false);
            requestAnimationFrame(() => focusOrMain(editButton.current));
          }}
        />
      )}

      <div className="grid-2">
        <section className="card" aria-labelledby="schedule-h">
          <h2 id="schedule-h">{t.kind === "generator" ? "Schedule" : "Scheduled time"}</h2>
          <Schedule t={t} />
        </section>
        <section className="card" aria-labelledby="details-h">
          <h2 id="details-h">Details</h2>
          <dl className="kvs">
            <Field label="ID">
              <code className="break">{t.id}</code>
            </Field>
            <Field label="Custom key">{t.customKey === null ? <span className="muted">—</span> : <span className="verbatim">{t.customKey}</span>}</Field>
            <Field label="Tags">
              <Tags tags={t.tags} />
            </Field>
            <Field label="Created">
              <Time iso={t.createdAt} />
            </Field>
            <Field label="Updated">
              <Time iso={t.updatedAt} />
            </Field>
          </dl>
        </section>
      </div>

      <section className="card" aria-labelledby="request-h">
        <h2 id="request-h">Stored request</h2>
        <p className="request-line break">
          <span className="method">{t.method}</span> <span data-testid="request-url" className="verbatim">{t.url}</span>
        </p>
        <div className="grid-2 tight">
          <div>
            <h3>Headers</h3>
            <HeaderList headers={t.headers} />
          </div>
          <div>
            <h3>Body</h3>
            <Body text={t.body} />
          </div>
        </div>
      </section>

      {t.kind === "generator" && t.status === "active" && t.cronExpr && <NextRuns cronExpr={t.cronExpr} tz={t.tz ?? "UTC"} pendingAt={t.scheduledAt} />}

      {t.kind === "job" ? (
        <section className="card" aria-labelledby="executions-h">
          <h2 id="executions-h">Executions</h2>
          <Executions executions={data.executions} />
        </section>
      ) : (
        <Instances key={version} generatorId={t.id} />
      )}

      {confirming && (
        <ConfirmDialog
          open
          title={ACTIONS[confirming].title}
          confirmLabel={ACTIONS[confirming].label}
          onConfirm={() => act(confirming)}
          onClose={() => setConfirming(null)}
        >
          <p>{ACTIONS[confirming].text}</p>
          <p className="muted small break">
            {t.method} {t.url}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
