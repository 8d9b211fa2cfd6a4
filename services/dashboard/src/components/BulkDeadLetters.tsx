// Replay or discard dead letters in bulk, chosen by tag and by when they
// failed (POST /dead-letters/replay and /discard, docs/api/dead-letters.md).
// Nothing changes before the person has seen the count: the button first
// asks with dryRun, and only Confirm in the dialog sends the real call.
import { type FormEvent, useState } from "react";
import { ApiError, api, errorText } from "../lib/api";
import { viewerZone } from "../lib/format";
import type { DeadLetterSelection } from "../lib/types";
import { ConfirmDialog } from "./ConfirmDialog";

type Action = "replay" | "discard";

/** The most one call acts on; a count this high means there may be more. */
const CAP = 10_000;

const VERB = { replay: "replayed", discard: "discarded" } as const;

const letters = (n: number) => `${n.toLocaleString()} dead letter${n === 1 ? "" : "s"}`;

/** A datetime-local value (the viewer's wall-clock time) as an ISO instant; "" stays absent. */
function instant(local: string): string | undefined {
  if (local === "") return undefined;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

interface Pending {
  action: Action;
  selection: DeadLetterSelection;
  count: number;
}

export function BulkDeadLetters({ onDone }: { onDone: (message: string) => Promise<void> | void }) {
  const [tag, setTag] = useState("");
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const [busy, setBusy] = useState<Action | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);

  const selection = (): DeadLetterSelection => {
    const s: DeadLetterSelection = {};
    if (tag.trim() !== "") s.tag = tag.trim();
    const f = instant(from);
    const t = instant(to);
    if (f) s.from = f;
    if (t) s.to = t;
    return s;
  };

  const ask = async (action: Action) => {
    setError(null);
    setInfo(null);
    setBusy(action);
    const chosen = selection();
    try {
      const { count } = await api.deadLettersBulk(action, chosen, true);
      if (count === 0) setInfo(`No dead letters match, so nothing would be ${VERB[action]}.`);
      else setPending({ action, selection: chosen, count });
    } catch (e) {
      setError(e instanceof ApiError && e.status === 400 && e.tag === null ? "The selection was refused: check the tag and the dates." : errorText(e));
    } finally {
      setBusy(null);
    }
  };

  const confirm = async (p: Pending) => {
    try {
      const { count } = await api.deadLettersBulk(p.action, p.selection, false);
      await onDone(
        p.action === "replay"
          ? `${letters(count)} replayed: their triggers are queued and go out oldest first.`
          : `${letters(count)} discarded: they are off this list; their triggers and history are unchanged.`,
      );
    } catch (e) {
      setError(`${p.action === "replay" ? "Replay" : "Discard"} failed: ${errorText(e)}`);
    }
  };

  return (
    <form className="card bulk" aria-labelledby="bulk-h" onSubmit={(e: FormEvent) => e.preventDefault()} noValidate>
      <h2 id="bulk-h">Replay or discard in bulk</h2>
      <p className="hint" id="bulk-hint">
        Choose a tag and, if you like, when they failed (in your time, {viewerZone}). Leave the tag empty for every tag. You
        see how many match before anything changes.
      </p>
      {error && (
        <p className="note error" role="alert">
          {error}
        </p>
      )}
      <p className="note info" role="status" hidden={info === null}>
        {info}
      </p>
      <div className="bulk-fields">
        <div className="field">
          <label htmlFor="bulk-tag">Tag</label>
          <input
            id="bulk-tag"
            value={tag}
            onChange={(e) => setTag(e.target.value)}
            spellCheck={false}
            autoCapitalize="off"
            autoComplete="off"
            aria-describedby="bulk-hint"
          />
        </div>
        <div className="field">
          <label htmlFor="bulk-from">Failed from</label>
          <input id="bulk-from" type="datetime-local" step={1} value={from} onChange={(e) => setFrom(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="bulk-to">Failed before</label>
          <input id="bulk-to" type="datetime-local" step={1} value={to} onChange={(e) => setTo(e.target.value)} />
        </div>
        <div className="bulk-actions">
          <button type="button" className="button" onClick={() => ask("replay")} disabled={busy !== null}>
            {busy === "replay" ? "Counting…" : "Replay…"}
          </button>
          <button type="button" className="button danger" onClick={() => ask("discard")} disabled={busy !== null}>
            {busy === "discard" ? "Counting…" : "Discard…"}
          </button>
        </div>
      </div>
      {pending && (
        <ConfirmDialog
          open
          danger={pending.action === "discard"}
          title={pending.action === "replay" ? "Replay these dead letters?" : "Discard these dead letters?"}
          confirmLabel="Confirm"
          onConfirm={() => confirm(pending)}
          onClose={() => setPending(null)}
        >
          <p data-testid="bulk-count">
            {pending.count >= CAP ? `At least ${letters(CAP)} match; the first ${letters(CAP)}` : letters(pending.count)} will be {VERB[pending.action]}
            {pending.selection.tag ? ` (tag “${pending.selection.tag}”)` : " (every tag)"}.
          </p>
          <p>
            {pending.action === "replay"
              ? "Each trigger is sent again as a new attempt (triggered by replay), within its tag's limits. Targets may receive requests twice."
              : "They leave the dead-letter list and later bulk replays. Their triggers and history stay as they are. This cannot be undone."}
          </p>
          {pending.count >= CAP && <p>Run it again afterwards for the rest.</p>}
        </ConfirmDialog>
      )}
    </form>
  );
}
