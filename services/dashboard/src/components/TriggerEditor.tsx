// The trigger form (docs/dashboard.md): New trigger on the Triggers page, Edit on
// a trigger's page. It sends the whole trigger (POST /triggers or PUT
// /triggers/<id>), and shows the API's message next to the field it is
// about, moving focus there. An edit keeps the trigger's kind: a one-shot
// gets a new date, a recurring trigger a new cron expression.
import { isTimeZoneName } from "@ttr/core/cron-next";
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from "react";
import { ApiError, api, errorText } from "../lib/api";
import { cronFields, describeCron, nextRuns } from "../lib/cron";
import { inZone, utc, viewerZone } from "../lib/format";
import {
  bodyOf,
  carriesNoBody,
  emptyForm,
  type FieldErrors,
  type FieldName,
  fieldOfMessage,
  formOf,
  instantOf,
  METHODS,
  type TriggerForm,
} from "../lib/trigger-form";
import type { ScheduleResult, Trigger } from "../lib/types";

export type TriggerEditing = { mode: "create" } | { mode: "edit"; trigger: Trigger };

const ZONES = ["UTC", ...Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC")];

function Field({ id, label, hint, error, children }: { id: string; label: string; hint?: ReactNode; error?: string; children: ReactNode }) {
  return (
    <div className={`field${error ? " invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** aria attributes of an input with an optional hint and error. */
function described(id: string, errors: FieldErrors, name: FieldName, hint: boolean) {
  const by = [errors[name] ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ");
  return { "aria-invalid": errors[name] ? true : undefined, "aria-describedby": by || undefined };
}

function CronPreview({ expr, tz }: { expr: string; tz: string }) {
  // Without a zone no run can be placed; saying so beats the generic hint, which blames the expression.
  if (!isTimeZoneName(tz.trim() || "UTC")) return <>Unknown time zone “{tz.trim()}”: the next runs cannot be shown. Use an IANA name such as Europe/Berlin.</>;
  // cron-parser would also read six fields (seconds first), which the API refuses: no runs for those.
  const fields = cronFields(expr).length;
  const runs = fields === 5 ? nextRuns(expr.trim(), tz.trim() || "UTC", 3) : [];
  if (fields > 0 && fields !== 5) return <>Five fields expected (minute hour day-of-month month day-of-week), not {fields}: e.g. 0 9 * * 1-5.</>;
  if (runs.length === 0) return <>Five fields: minute hour day-of-month month day-of-week, e.g. 0 9 * * 1-5.</>;
  return (
    <>
      {describeCron(expr.trim(), tz.trim() || "UTC")}. Next: {runs.map((d) => inZone(d, tz.trim() || "UTC")).join(" · ")}
    </>
  );
}

export function TriggerEditor({ editing, onSaved, onCancel }: { editing: TriggerEditing; onSaved: (r: ScheduleResult) => void; onCancel: () => void }) {
  const [form, setForm] = useState<TriggerForm>(() => (editing.mode === "edit" ? formOf(editing.trigger) : emptyForm()));
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const headingId = useId();
  const creating = editing.mode === "create";

  const set = <K extends keyof TriggerForm>(k: K, v: TriggerForm[K]) => setForm((f) => ({ ...f, [k]: v }));
  const setHeader = (i: number, k: "name" | "value", v: string) =>
    setForm((f) => ({ ...f, headers: f.headers.map((h, j) => (j === i ? { ...h, [k]: v } : h)) }));

  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>("#t-url")?.focus();
  }, []);

  const focusError = (errs: FieldErrors) => {
    const first = Object.keys(errs)[0] as FieldName | undefined;
    if (!first) return;
    const selector = first === "form" ? "#t-form-error" : first === "headers" ? "#t-headers input, #t-headers-add" : `#t-${first}`;
    requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>(selector)?.focus());
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const built = bodyOf(form);
    if ("errors" in built) {
      setErrors(built.errors);
      focusError(built.errors);
      return;
    }
    setBusy(true);
    try {
      onSaved(editing.mode === "create" ? await api.createTrigger(built.body) : await api.editTrigger(editing.trigger.id, built.body));
    } catch (err) {
      const message = errorText(err);
      const answered = err instanceof ApiError && err.tag !== null && (err.status === 400 || err.status === 413);
      const errs = { [answered ? fieldOfMessage(message, form.mode) : "form"]: message };
      setErrors(errs);
      focusError(errs);
    } finally {
      setBusy(false);
    }
  };

  const at = instantOf(form.at);
  const noBody = carriesNoBody(form.method);
  const methods = METHODS.includes(form.method) ? METHODS : [...METHODS, form.method];
  const title = creating ? "New trigger" : editing.trigger.kind === "generator" ? "Edit recurring trigger" : "Edit trigger";

  return (
    <form ref={formRef} className="card trigger-form" onSubmit={submit} noValidate aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {errors.form && (
        <p className="note error" role="alert" id="t-form-error" tabIndex={-1}>
          {errors.form}
        </p>
      )}

      <div className="request-row">
        <Field id="t-method" label="Method" error={errors.method}>
          <select id="t-method" value={form.method} onChange={(e) => set("method", e.target.value)} {...described("t-method", errors, "method", false)}>
            {methods.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Field>
        <Field id="t-url" label="URL" hint="The absolute address the request is sent to." error={errors.url}>
          <input
            id="t-url"
            type="url"
            value={form.url}
            onChange={(e) => set("url", e.target.value)}
            placeholder="https://example.com/hooks/reminder"
            spellCheck={false}
            autoComplete="off"
            {...described("t-url", errors, "url", true)}
          />
        </Field>
      </div>

      <fieldset className="group">
        <legend>When</legend>
        {creating ? (
          <div className="choice" role="radiogroup" aria-label="Kind of schedule">
            <label className="choice-option">
              <input className="radio" type="radio" name="t-mode" checked={form.mode === "once"} onChange={() => set("mode", "once")} /> Once, at a date and time
            </label>
            <label className="choice-option">
              <input className="radio" type="radio" name="t-mode" checked={form.mode === "cron"} onChange={() => set("mode", "cron")} /> Recurring, on a cron schedule
            </label>
          </div>
        ) : (
          <p className="hint">{form.mode === "cron" ? "A recurring trigger keeps a cron schedule; its next instance is replaced." : "A one-shot trigger gets a new date and time."}</p>
        )}
        {form.mode === "once" ? (
          <>
            <Field
              id="t-at"
              label={`Date and time (your time, ${viewerZone})`}
              hint={at ? `Sent as ${utc(at.toISOString())}.` : "Day, month, year and time, to the second."}
              error={errors.at}
            >
              <input id="t-at" type="datetime-local" step={1} value={form.at} onChange={(e) => set("at", e.target.value)} {...described("t-at", errors, "at", true)} />
            </Field>
            <div className="field checkbox">
              <input id="t-runMissed" type="checkbox" checked={form.runMissed} onChange={(e) => set("runMissed", e.target.checked)} />
              <label htmlFor="t-runMissed">If this time has passed, send it at once (otherwise it is stored as skipped)</label>
            </div>
          </>
        ) : (
          <div className="row-2">
            <Field id="t-cronExpr" label="Cron expression" hint={<CronPreview expr={form.cronExpr} tz={form.tz} />} error={errors.cronExpr}>
              <input
                id="t-cronExpr"
                value={form.cronExpr}
                onChange={(e) => set("cronExpr", e.target.value)}
                placeholder="0 9 * * 1-5"
                spellCheck={false}
                autoComplete="off"
                {...described("t-cronExpr", errors, "cronExpr", true)}
              />
            </Field>
            <Field id="t-tz" label="Time zone" hint="An IANA name such as Europe/Berlin; runs follow its daylight-saving changes." error={errors.tz}>
              <input id="t-tz" list="t-zones" value={form.tz} onChange={(e) => set("tz", e.target.value)} spellCheck={false} autoComplete="off" {...described("t-tz", errors, "tz", true)} />
              <datalist id="t-zones">
                {ZONES.map((z) => (
                  <option key={z} value={z} />
                ))}
              </datalist>
            </Field>
          </div>
        )}
      </fieldset>

      <fieldset className={`group${errors.headers ? " invalid" : ""}`} id="t-headers" aria-describedby={errors.headers ? "t-headers-error" : undefined}>
        <legend>Headers</legend>
        {form.headers.length === 0 && <p className="hint">None. Headers starting with ttr- and connection-level ones cannot be sent.</p>}
        {form.headers.map((h, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity beyond their position
          <div className="header-edit-row" key={i}>
            <div className="field">
              <label htmlFor={`t-header-name-${i}`}>Name</label>
              <input id={`t-header-name-${i}`} value={h.name} onChange={(e) => setHeader(i, "name", e.target.value)} spellCheck={false} autoComplete="off" aria-invalid={errors.headers ? true : undefined} />
            </div>
            <div className="field">
              <label htmlFor={`t-header-value-${i}`}>Value</label>
              <input id={`t-header-value-${i}`} value={h.value} onChange={(e) => setHeader(i, "value", e.target.value)} spellCheck={false} autoComplete="off" />
            </div>
            <button type="button" className="button small" onClick={() => setForm((f) => ({ ...f, headers: f.headers.filter((_, j) => j !== i) }))}>
              Remove<span className="visually-hidden"> header {i + 1}</span>
            </button>
          </div>
        ))}
        <button type="button" id="t-headers-add" className="button small" onClick={() => setForm((f) => ({ ...f, headers: [...f.headers, { name: "", value: "" }] }))}>
          Add header
        </button>
        {errors.headers && (
          <p className="field-error" id="t-headers-error">
            {errors.headers}
          </p>
        )}
      </fieldset>

      <Field id="t-body" label="Body" hint={noBody ? `A ${form.method} request is sent without a body.` : "Sent as UTF-8 text, up to 1 MiB. Set a Content-Type header to match."} error={errors.body}>
        <textarea id="t-body" rows={5} value={noBody ? "" : form.body} disabled={noBody} onChange={(e) => set("body", e.target.value)} spellCheck={false} {...described("t-body", errors, "body", true)} />
      </Field>

      <div className="row-3">
        <Field id="t-customKey" label="Custom key" hint="Optional. A pending trigger with this key is updated instead of duplicated." error={errors.customKey}>
          <input id="t-customKey" value={form.customKey} onChange={(e) => set("customKey", e.target.value)} spellCheck={false} autoComplete="off" {...described("t-customKey", errors, "customKey", true)} />
        </Field>
        <Field id="t-tags" label="Tags" hint="Up to 10, separated by commas: a-z, 0-9, _ and -." error={errors.tags}>
          <input id="t-tags" value={form.tags} onChange={(e) => set("tags", e.target.value)} spellCheck={false} autoCapitalize="off" autoComplete="off" {...described("t-tags", errors, "tags", true)} />
        </Field>
        {form.mode === "once" && (
          <Field id="t-title" label="Title" hint="Optional label shown in the dashboard." error={errors.title}>
            <input id="t-title" value={form.title} onChange={(e) => set("title", e.target.value)} autoComplete="off" {...described("t-title", errors, "title", true)} />
          </Field>
        )}
      </div>

      <div className="form-actions">
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? "Saving…" : creating ? "Create trigger" : "Save changes"}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Discard
        </button>
      </div>
    </form>
  );
}
