// Tag policies (docs/api/tag-policies.md): list, create, edit, pause or
// resume, delete. The list refreshes like the others (lib/polling.ts), so a
// policy changed elsewhere shows up. The form itself is
// components/PolicyEditor.tsx.
import { useCallback, useEffect, useRef, useState } from "react";
import { ConfirmDialog } from "../components/ConfirmDialog";
import { ActionError, ErrorNote, Notice, Time } from "../components/bits";
import { type Editing, PolicyEditor } from "../components/PolicyEditor";
import { api, errorText } from "../lib/api";
import { useLoadOrder } from "../lib/load-order";
import { summary } from "../lib/policy-form";
import { usePolling } from "../lib/polling";
import type { TagPolicy } from "../lib/types";

export function Policies() {
  const [policies, setPolicies] = useState<TagPolicy[] | null>(null);
  // A failed load is cleared by the next refresh that works; the API's
  // refusal of Pause, Resume or Delete stays until dismissed or replaced by
  // the next action's outcome, so the refresh that follows cannot wipe it.
  const [loadError, setLoadError] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<TagPolicy | null>(null);
  const [toggling, setToggling] = useState<string | null>(null);
  const newButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    document.title = "Tag policies · ttr";
  }, []);

  const order = useLoadOrder();
  const load = useCallback(async (background = false) => {
    const fresh = order.start();
    try {
      const { tagPolicies } = await api.policies({ background });
      if (!fresh()) return;
      setPolicies(tagPolicies);
      setLoadError(null);
    } catch (e) {
      if (fresh()) setLoadError(errorText(e));
    }
  }, [order]);

  usePolling(load, [load]);

  const saved = async (p: TagPolicy, created: boolean) => {
    setEditing(null);
    setActionError(null);
    setNotice(created ? `Policy for “${p.tag}” saved.` : `Changes to “${p.tag}” saved.`);
    await load();
    newButton.current?.focus();
  };

  const remove = async (p: TagPolicy) => {
    setNotice(null);
    setActionError(null);
    try {
      await api.deletePolicy(p.id);
      setNotice(`Policy for “${p.tag}” deleted. Triggers keep the tag and lose its limits from their next attempt.`);
    } catch (e) {
      setActionError(`Deleting “${p.tag}” failed: ${errorText(e)}`);
    }
    await load();
  };

  const togglePause = async (p: TagPolicy) => {
    const pausing = p.paused !== true;
    setNotice(null);
    setActionError(null);
    setToggling(p.id);
    try {
      await api.setPaused(p.id, pausing);
      setNotice(
        pausing
          ? `“${p.tag}” is paused: its triggers wait, queued, until it is resumed.`
          : `“${p.tag}” is resumed: waiting triggers go out oldest first, within its limits.`,
      );
    } catch (e) {
      setActionError(`${pausing ? "Pausing" : "Resuming"} “${p.tag}” failed: ${errorText(e)}`);
    }
    await load();
    setToggling(null);
  };

  return (
    <section aria-labelledby="page-h">
      <div className="page-head">
        <h1 id="page-h">Tag policies</h1>
        <button
          ref={newButton}
          type="button"
          className="button primary"
          onClick={() => {
            setNotice(null);
            setActionError(null);
            setEditing({ mode: "create" });
          }}
          disabled={editing?.mode === "create"}
        >
          New policy
        </button>
      </div>
      <p className="muted">Limits, a timeout and retries for every trigger that carries a tag.</p>
      <Notice text={notice} />
      <ActionError error={actionError} onDismiss={() => setActionError(null)} />
      <ErrorNote error={loadError} />

      {editing && (
        <PolicyEditor
          key={editing.mode === "edit" ? editing.policy.id : "new"}
          editing={editing}
          existing={policies}
          onSaved={saved}
          onCancel={() => {
            setEditing(null);
            newButton.current?.focus();
          }}
        />
      )}

      {policies === null ? (
        <p className="muted">Loading…</p>
      ) : policies.length === 0 ? (
        <p className="empty card">No tag policies yet.</p>
      ) : (
        <ul className="policies">
          {policies.map((p) => {
            const s = summary(p);
            return (
              <li key={p.id} className={`card policy${p.paused ? " is-paused" : ""}`} data-testid="policy" data-tag={p.tag} data-paused={p.paused ? "true" : undefined}>
                <div className="policy-main">
                  <h2 className="policy-tag">
                    <span className="tag">{p.tag}</span>
                    {p.paused && <span className="badge paused">Paused</span>}
                  </h2>
                  <p>{s.limits.length ? s.limits.join(" · ") : <span className="muted">No limits</span>}</p>
                  <p className="muted">{s.retry}</p>
                  <p className="muted small">
                    Updated <Time iso={p.updatedAt} />
                  </p>
                </div>
                <div className="policy-actions">
                  <button
                    type="button"
                    className="button small"
                    onClick={() => {
                      setNotice(null);
                      setActionError(null);
                      setEditing({ mode: "edit", policy: p });
                      window.scrollTo({ top: 0 });
                    }}
                  >
                    Edit<span className="visually-hidden"> {p.tag}</span>
                  </button>
                  {/* aria-disabled, not disabled: a disabled button loses focus to the page's body while the call is out */}
                  <button
                    type="button"
                    className="button small"
                    onClick={() => toggling !== p.id && togglePause(p)}
                    aria-disabled={toggling === p.id ? true : undefined}
                  >
                    {p.paused ? "Resume" : "Pause"}
                    <span className="visually-hidden"> {p.tag}</span>
                  </button>
                  <button type="button" className="button small danger" onClick={() => setDeleting(p)}>
                    Delete<span className="visually-hidden"> {p.tag}</span>
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}

      {deleting && (
        <ConfirmDialog
          open
          danger
          title={`Delete the policy for “${deleting.tag}”?`}
          confirmLabel="Delete policy"
          onConfirm={() => remove(deleting)}
          onClose={() => setDeleting(null)}
        >
          <p>Triggers keep the tag; its limits, timeout and retries stop applying from their next attempt.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
