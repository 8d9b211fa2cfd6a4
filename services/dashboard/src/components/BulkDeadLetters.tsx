// Replay or discard dead letters in bulk, chosen by tag and by when they
// failed (POST /dead-letters/replay and /discard, docs/api/dead-letters.md).
// Nothing changes before the person has seen the count: the button first
// asks with dryRun, and only Confirm in the dialog sends the real call. A
// date typed in part (day and month, no year) is refused at its field: the
// input then reads as empty, and taking that as "no limit" would act on
// every dead letter of the tag.
import { type FormEvent, type RefObject, useRef, useState } from "react";
import { ApiError, api, errorText } from "../lib/api";
import { inZone, utc, viewerZone } from "../lib/format";
import type { DeadLetterSelection } from "../lib/types";
import { ConfirmDialog } from "./ConfirmDialog";

type Action = "replay" | "discard";

/** The most one call acts on; a count this high means there may be more. */
const CAP = 10_000;

const VERB = { replay: "replayed", discard: "discarded" } as const;

const letters = (n: number) => `${n.toLocaleString()} dead letter${n === 1 ? "" : "s"}`;

type Bound = "from" | "to";

const LABEL: Record<Bound, string> = { from: "Failed from", to: "Failed before" };

/**
 * A datetime-local input's value (the viewer's wall-clock time) as an ISO
 * instant: undefined when the input is empty, null when something is typed
 * but is no complete date and time (the browser then gives "" as the value
 * and says badInput).
 */
function instant(input: HTMLInputElement | null): string | undefined | null {
  if (input === null) return undefined;
  if (input.validity.badInput) return null;
  if (input.value === "") return undefined;
  const d = new Date(input.value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The selected range in words, in the viewer's zone and in UTC. */
function rangeText(s: DeadLetterSelection): string {
  const at = (iso: string) => `${inZone(iso)} (${utc(iso)})`;
  if (s.from && s.to) return `from ${at(s.from)} up to, not including, ${at(s.to)}`;
  if (s.from) return `from ${at(s.from)} on`;
  if (s.to) return `before ${at(s.to)}`;
  return "at any time";
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
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Bound, string>>>({});
  const inputs: Record<Bound, RefObject<HTMLInputElement | null>> = { from: useRef(null), to: useRef(null) };

  /** The selection typed, or null (with the fields' messages set and the first focused) when a date is incomplete. */
  const selection = (): DeadLetterSelection | null => {
    const s: DeadLetterSelection = {};
    if (tag.trim() !== "") s.tag = tag.trim();
    const errors: Partial<Record<Bound, string>> = {};
    for (const bound of ["from", "to"] as const) {
      const at = instant(inputs[bound].current);
      if (at === null) errors[bound] = `${LABEL[bound]} is not a complete date and time: finish it or clear it.`;
      else if (at !== undefined) s[bound] = at;
    }
    setFieldErrors(errors);
    const first = (["from", "to"] as const).find((b) => errors[b] !== undefined);
    if (first === undefined) return s;
    inputs[first].current?.focus();
    return null;
  };

  const ask = async (action: Action) => {
    setError(null);
    setInfo(null);
    const chosen = selection();
    if (chosen === null) return;
    setBusy(action);
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
        {(["from", "to"] as const).map((bound) => (
          <div key={bound} className={`field${fieldErrors[bound] ? " invalid" : ""}`}>
            <label htmlFor={`bulk-${bound}`}>{LABEL[bound]}</label>
            <input
              ref={inputs[bound]}
              id={`bulk-${bound}`}
              type="datetime-local"
              step={1}
              value={bound === "from" ? from : to}
              onChange={(e) => (bound === "from" ? setFrom : setTo)(e.target.value)}
              aria-invalid={fieldErrors[bound] ? true : undefined}
              aria-describedby={fieldErrors[bound] ? `bulk-${bound}-error` : undefined}
            />
            {fieldErrors[bound] && (
              <p className="field-error" id={`bulk-${bound}-error`}>
                {fieldErrors[bound]}
              </p>
            )}
          </div>
        ))}
        <div className="bulk-actions">
          {/* aria-disabled, not disabled, while counting: focus stays on the button, and returns to it when the dialog closes */}
          {(["replay", "discard"] as const).map((action) => (
            <button
              key={action}
              type="button"
              className={action === "replay" ? "button" : "button danger"}
              onClick={() => busy === null && ask(action)}
              aria-disabled={busy !== null ? true : undefined}
            >
              {busy === action ? "Counting…" : action === "replay" ? "Replay…" : "Discard…"}
            </button>
          ))}
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
          <p data-testid="bulk-range">Failed {rangeText(pending.selection)}.</p>
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
