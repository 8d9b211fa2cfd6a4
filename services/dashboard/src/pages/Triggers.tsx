// The trigger list page: filters kept in the URL (so back, reload and links
// keep them), the rows of useTriggerList with the status labels of docs/concepts.md,
// and New trigger (components/TriggerEditor.tsx), which leads to the new
// trigger's page once it is saved.
import { type FormEvent, useEffect, useRef, useState } from "react";
import { ErrorNote, StatusBadge, Tags, Time } from "../components/bits";
import { TriggerEditor } from "../components/TriggerEditor";
import type { TriggerFilter } from "../lib/api";
import { describeCron } from "../lib/cron";
import { flash } from "../lib/flash";
import { fromNow, KIND_LABELS, STATUS_FILTERS, shownTitle } from "../lib/format";
import { REFRESH_MS } from "../lib/polling";
import { Link, navigate, useLocation } from "../lib/router";
import { useTriggerList } from "../lib/trigger-list";
import type { ScheduleResult, Trigger } from "../lib/types";

const FILTER_KEYS = ["status", "tag", "kind", "customKey"] as const;

function filterOf(query: URLSearchParams): TriggerFilter {
  const f: TriggerFilter = {};
  for (const k of FILTER_KEYS) {
    const v = query.get(k);
    if (v) f[k] = v;
  }
  return f;
}

function queryOf(f: TriggerFilter): string {
  const s = new URLSearchParams();
  for (const k of FILTER_KEYS) if (f[k]) s.set(k, f[k]!);
  const text = s.toString();
  return text ? `?${text}` : "";
}

const KIND_FILTERS = [
  { value: "job", label: "One-shot and instances" },
  { value: "generator", label: "Recurring" },
];

/**
 * A value from the URL that is not one of the choices (?status=bogus), as
 * an option of its own: the API's refusal shows below, and the select
 * should show what was asked for rather than read "Any".
 */
function Unknown({ value, known }: { value: string | undefined; known: Array<{ value: string }> }) {
  if (!value || known.some((k) => k.value === value)) return null;
  return <option value={value}>{`${value} (unknown)`}</option>;
}

function When({ t }: { t: Trigger }) {
  if (t.kind === "generator") return <span>{t.cronExpr ? describeCron(t.cronExpr, t.tz) : "—"}</span>;
  return (
    <span className="stack">
      <Time iso={t.scheduledAt} />
      <span className="muted small">{fromNow(t.scheduledAt)}</span>
    </span>
  );
}

export function TriggerRows({ triggers, showKind = true }: { triggers: Trigger[]; showKind?: boolean }) {
  return (
    <div className="table-wrap">
      <table className="table cards">
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col">Trigger</th>
            {showKind && <th scope="col">Kind</th>}
            <th scope="col">Tags</th>
            <th scope="col">Scheduled</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {triggers.map((t) => (
            <tr key={t.id} data-testid="trigger-row" data-id={t.id}>
              <td data-label="Status">
                <StatusBadge kind={t.kind} status={t.status} />
              </td>
              <td data-label="Trigger" className="trigger-cell">
                <div>
                  <Link to={`/triggers/${t.id}`} className="row-link">
                    {shownTitle(t) ?? (
                      <>
                        <span className="method">{t.method}</span> {t.url}
                      </>
                    )}
                  </Link>
                  {shownTitle(t) && (
                    <span className="muted small url">
                      <span className="method">{t.method}</span> {t.url}
                    </span>
                  )}
                  {t.customKey && <span className="muted small">key {t.customKey}</span>}
                </div>
              </td>
              {showKind && <td data-label="Kind">{KIND_LABELS[t.kind]}</td>}
              <td data-label="Tags">
                <Tags tags={t.tags} />
              </td>
              <td data-label="Scheduled">
                <When t={t} />
              </td>
              <td data-label="Created">
                <Time iso={t.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Triggers() {
  const { query } = useLocation();
  const filter = filterOf(query);
  const key = queryOf(filter);
  const [draft, setDraft] = useState<TriggerFilter>(filter);
  const [creating, setCreating] = useState(false);
  const newButton = useRef<HTMLButtonElement>(null);
  const list = useTriggerList(filter);
  const { rows, cursor } = list;

  useEffect(() => {
    document.title = "Triggers · ttr";
  }, []);

  // The form follows the URL (back and forward included).
  useEffect(() => {
    setDraft(filterOf(new URLSearchParams(key)));
  }, [key]);

  const apply = (f: TriggerFilter) => navigate(`/triggers${queryOf(f)}`);
  /** The whole form as it reads now, typed text included, with `change` on top. */
  const applyDraft = (change: TriggerFilter = {}) => {
    const f = { ...draft, ...change };
    apply({ ...f, tag: f.tag?.trim(), customKey: f.customKey?.trim() });
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    applyDraft();
  };
  const setField = (k: keyof TriggerFilter, v: string) => setDraft((d) => ({ ...d, [k]: v }));
  const filtered = Object.keys(filter).length > 0;

  const created = (r: ScheduleResult) => {
    const what = r.kind === "generator" ? "Recurring trigger" : "Trigger";
    flash(r.operation === "reschedule" ? `${what} saved: an existing trigger with this custom key was updated.` : `${what} created.`);
    navigate(`/triggers/${r.triggerId}`);
  };

  return (
    <section aria-labelledby="page-h">
      <div className="page-head">
        <h1 id="page-h">Triggers</h1>
        <div className="page-head-side">
          <p className="muted small" aria-live="off">
            {list.updated ? `Updated ${list.updated.toLocaleTimeString()} · refreshes every ${REFRESH_MS / 1000} s` : "Loading…"}
          </p>
          <button ref={newButton} type="button" className="button primary" onClick={() => setCreating(true)} disabled={creating}>
            New trigger
          </button>
        </div>
      </div>

      {creating && (
        <TriggerEditor
          editing={{ mode: "create" }}
          onSaved={created}
          onCancel={() => {
            setCreating(false);
            requestAnimationFrame(() => newButton.current?.focus());
          }}
        />
      )}

      <form className="filters card" onSubmit={submit} aria-label="Filter triggers">
        <div className="field">
          <label htmlFor="f-status">Status</label>
          {/* A choice applies the whole form, so a tag typed but not yet applied is kept. */}
          <select id="f-status" value={draft.status ?? ""} onChange={(e) => applyDraft({ status: e.target.value })}>
            <option value="">Any status</option>
            <Unknown value={draft.status} known={STATUS_FILTERS} />
            {STATUS_FILTERS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="f-kind">Kind</label>
          <select id="f-kind" value={draft.kind ?? ""} onChange={(e) => applyDraft({ kind: e.target.value })}>
            <option value="">Any kind</option>
            <Unknown value={draft.kind} known={KIND_FILTERS} />
            {KIND_FILTERS.map((k) => (
              <option key={k.value} value={k.value}>
                {k.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="f-tag">Tag</label>
          <input id="f-tag" value={draft.tag ?? ""} onChange={(e) => setField("tag", e.target.value)} spellCheck={false} autoCapitalize="off" />
        </div>
        <div className="field">
          <label htmlFor="f-key">Custom key</label>
          <input id="f-key" value={draft.customKey ?? ""} onChange={(e) => setField("customKey", e.target.value)} spellCheck={false} autoCapitalize="off" />
        </div>
        <div className="filter-actions">
          <button type="submit" className="button primary">
            Apply
          </button>
          {filtered && (
            <button type="button" className="button" onClick={() => apply({})}>
              Clear
            </button>
          )}
        </div>
      </form>

      <ErrorNote error={list.error} />

      {rows === null ? (
        <p className="muted" aria-busy="true">
          Loading triggers…
        </p>
      ) : rows.length === 0 ? (
        <p className="empty card">{filtered ? "No triggers match these filters." : "No triggers yet. Create one with New trigger, or schedule one with the API, and it shows up here."}</p>
      ) : (
        <>
          <TriggerRows triggers={rows} />
          <div className="list-foot">
            <p className="muted small">
              {rows.length} shown{cursor === null ? " · end of list" : ""}
            </p>
            {cursor !== null && (
              <button type="button" className="button" onClick={list.loadMore} disabled={list.loadingMore}>
                {list.loadingMore ? "Loading…" : "Load more"}
              </button>
            )}
          </div>
        </>
      )}
    </section>
  );
}
