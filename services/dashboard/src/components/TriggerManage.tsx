// Edit and Cancel trigger on a trigger's page (docs/dashboard.md), shown where
// the API accepts them: Edit for a registered one-shot (not an instance:
// change its recurring trigger instead) or an active recurring trigger;
// Cancel trigger for a registered, skipped or retrying one-shot or instance,
// or an active recurring trigger. Cancelling asks first.
import { type RefObject, useState } from "react";
import { api, errorText } from "../lib/api";
import { carriesNoBody } from "../lib/trigger-form";
import type { Trigger } from "../lib/types";
import { ConfirmDialog } from "./ConfirmDialog";

export function canEdit(t: Trigger): boolean {
  return t.kind === "generator" ? t.status === "active" : t.status === "registered" && t.generatorId === null;
}

/**
 * Why the form cannot keep a trigger's body, or null when it can. The API
 * gives a stored body as UTF-8 text, with U+FFFD in place of bytes that are
 * not (a /declare or /bulk item can store any bytes, as base64), and the
 * form edits text only. A /declare or /bulk item may also send a body with
 * GET, HEAD or OPTIONS, where the form has none. Saving would change or drop
 * such a body: Edit is offered only for bodies the form can hold whole.
 */
export function bodyProblem(t: Trigger): string | null {
  if (t.body === null || t.body === "") return null;
  if (t.body.includes("\uFFFD")) return "Its body holds bytes that are not UTF-8 text, which the form cannot keep: edit it through /schedule, /declare or /bulk.";
  if (carriesNoBody(t.method)) return `Its ${t.method.toUpperCase()} request carries a body, which the form cannot keep: edit it through /declare or /bulk.`;
  return null;
}

export function canCancel(t: Trigger): boolean {
  return t.kind === "generator" ? t.status === "active" : t.status === "registered" || t.status === "skipped" || t.status === "retrying";
}

function consequence(t: Trigger): string {
  if (t.kind === "generator") return "No further runs are created, and its next instance is cancelled. Instances already waiting to be sent still go out.";
  if (t.status === "retrying") return "Its planned retry is not sent. An attempt already in flight is not stopped.";
  return "It will not be sent.";
}

interface Props {
  trigger: Trigger;
  editing: boolean;
  editRef: RefObject<HTMLButtonElement | null>;
  onEdit: () => void;
  /** after the cancel call: null when it worked, else the API's message */
  onCancelled: (problem: string | null) => Promise<void>;
}

export function TriggerManage({ trigger: t, editing, editRef, onEdit, onCancelled }: Props) {
  const [confirming, setConfirming] = useState(false);

  const cancel = async () => {
    try {
      await api.cancelTrigger(t.id);
    } catch (e) {
      await onCancelled(errorText(e));
      return;
    }
    await onCancelled(null);
  };

  return (
    <div className="actions manage">
      {canEdit(t) && bodyProblem(t) === null && (
        <button ref={editRef} type="button" className="button" onClick={onEdit} disabled={editing}>
          Edit
        </button>
      )}
      {canEdit(t) && bodyProblem(t) !== null && <p className="hint">{bodyProblem(t)}</p>}
      {canCancel(t) && (
        <button type="button" className="button danger" onClick={() => setConfirming(true)}>
          Cancel trigger
        </button>
      )}
      {confirming && (
        <ConfirmDialog
          open
          danger
          title={t.kind === "generator" ? "Cancel this recurring trigger?" : "Cancel this trigger?"}
          confirmLabel="Cancel trigger"
          dismissLabel="Keep it"
          onConfirm={cancel}
          onClose={() => setConfirming(false)}
        >
          <p>{consequence(t)}</p>
          <p className="muted small break">
            {t.method} {t.url}
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
