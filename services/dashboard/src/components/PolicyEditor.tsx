// The tag-policy form (docs/api/tag-policies.md): create (POST) or edit (PUT
// with only the changed fields). The API's validation message is shown at
// the field it names, and focus moves there. POST replaces a tag's policy
// whole (its pause and the rest), so creating one for a tag listed with a
// policy already is refused here, with a pointer to Edit.
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { ApiError, api, errorText } from "../lib/api";
import {
  changedFields,
  EMPTY_FORM,
  type FieldErrors,
  type FieldName,
  fieldOfMessage,
  fieldsOf,
  formOf,
  MAX_WINDOWS,
  type PolicyForm,
} from "../lib/policy-form";
import type { RetryOn, RetryStrategy, TagPolicy } from "../lib/types";

export type Editing = { mode: "create" } | { mode: "edit"; policy: TagPolicy };

function FieldError({ id, text }: { id: string; text: string | undefined }) {
  if (!text) return null;
  return (
    <p className="field-error" id={id}>
      {text}
    </p>
  );
}

interface InputProps {
  name: Exclude<FieldName, "form" | "throughput" | "retryJitter" | "retryStrategy" | "retryOn">;
  label: string;
  hint?: string;
  form: PolicyForm;
  errors: FieldErrors;
  set: (k: keyof PolicyForm, v: string) => void;
  numeric?: boolean;
}

function TextField({ name, label, hint, form, errors, set, numeric = true }: InputProps) {
  const id = `p-${name}`;
  const describedBy = [errors[name] ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div className={`field${errors[name] ? " invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        name={name}
        value={form[name] as string}
        onChange={(e) => set(name, e.target.value)}
        inputMode={numeric ? "decimal" : undefined}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={describedBy}
      />
      {hint && (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <FieldError id={`${id}-error`} text={errors[name]} />
    </div>
  );
}

interface Props {
  editing: Editing;
  /** the policies the page lists, or null before they are loaded */
  existing: readonly TagPolicy[] | null;
  onSaved: (p: TagPolicy, created: boolean) => void;
  onCancel: () => void;
}

export function PolicyEditor({ editing, existing, onSaved, onCancel }: Props) {
  const [form, setForm] = useState<PolicyForm>(editing.mode === "edit" ? formOf(editing.policy) : EMPTY_FORM);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [busy, setBusy] = useState(false);
  const [info, setInfo] = useState<string | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const headingId = useId();

  const set = (k: keyof PolicyForm, v: string | boolean) => setForm((f) => ({ ...f, [k]: v }));
  const setRow = (i: number, k: "window" | "rate", v: string) =>
    setForm((f) => ({ ...f, throughput: f.throughput.map((r, j) => (j === i ? { ...r, [k]: v } : r)) }));

  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>("input, select")?.focus();
  }, []);

  /** Focus the first input with an error so it is read out with its message. */
  const focusError = (errs: FieldErrors) => {
    const first = Object.keys(errs)[0] as FieldName | undefined;
    if (!first) return;
    requestAnimationFrame(() => {
      const target =
        first === "form"
          ? formRef.current?.querySelector<HTMLElement>("#p-form-error")
          : first === "throughput"
            ? formRef.current?.querySelector<HTMLElement>("#p-throughput input, #p-throughput-add")
            : formRef.current?.querySelector<HTMLElement>(`#p-${first}`);
      target?.focus();
    });
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setInfo(null);
    const parsed = fieldsOf(form);
    if ("errors" in parsed) {
      setErrors(parsed.errors);
      focusError(parsed.errors);
      return;
    }
    const tag = parsed.fields.tag;
    if (editing.mode === "create" && existing?.some((p) => p.tag === tag)) {
      const errs = { tag: `“${tag}” already has a policy: use Edit on it to change that policy. Creating one here would replace it whole.` };
      setErrors(errs);
      focusError(errs);
      return;
    }
    setBusy(true);
    try {
      if (editing.mode === "create") {
        onSaved((await api.createPolicy(parsed.fields)).tagPolicy, true);
      } else {
        const changed = changedFields(editing.policy, parsed.fields);
        if (Object.keys(changed).length === 0) {
          setErrors({});
          setInfo("Nothing changed, so nothing was saved.");
          return;
        }
        onSaved((await api.updatePolicy(editing.policy.id, changed)).tagPolicy, false);
      }
    } catch (err) {
      const message = errorText(err);
      const field = err instanceof ApiError && err.status === 400 && err.tag !== null ? fieldOfMessage(message) : "form";
      const errs = { [field]: message };
      setErrors(errs);
      focusError(errs);
    } finally {
      setBusy(false);
    }
  };

  const retrying = form.retryStrategy !== "none";
  const title = editing.mode === "create" ? "New tag policy" : `Edit policy for “${editing.policy.tag}”`;

  return (
    <form ref={formRef} className="card policy-form" onSubmit={submit} noValidate aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {errors.form && (
        <p className="note error" role="alert" id="p-form-error" tabIndex={-1}>
          {errors.form}
        </p>
      )}
      {info && (
        <p className="note info" role="status">
          {info}
        </p>
      )}

      <TextField name="tag" label="Tag" hint="1 to 50 characters: a-z, 0-9, _ and -." form={form} errors={errors} set={set} numeric={false} />

      <fieldset className="group">
        <legend>Limits</legend>
        <p className="hint">Set at least one limit, a timeout or a retry strategy.</p>
        <div className="row-3">
          <TextField name="maxConcurrent" label="Max concurrent" hint="Requests in flight at once; empty for no cap." form={form} errors={errors} set={set} />
          <TextField name="requestTimeoutSeconds" label="Timeout (seconds)" hint="1 to 3600; empty for the 300 s default." form={form} errors={errors} set={set} />
        </div>

        <fieldset className={`field windows${errors.throughput ? " invalid" : ""}`} id="p-throughput" aria-describedby="p-throughput-hint">
          <legend className="label">Throughput</legend>
          <p className="hint" id="p-throughput-hint">
            Requests per window (10s, 1m, 1h, 1d). A rate below 1 spaces requests out; 0 pauses the tag.
          </p>
          {form.throughput.map((row, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity beyond their position
            <div className="window-row" key={i}>
              <div className="field inline">
                <label htmlFor={`p-window-${i}`}>Window</label>
                <input
                  id={`p-window-${i}`}
                  value={row.window}
                  onChange={(e) => setRow(i, "window", e.target.value)}
                  placeholder="1m"
                  spellCheck={false}
                  autoComplete="off"
                  aria-invalid={errors.throughput ? true : undefined}
                  aria-describedby={errors.throughput ? "p-throughput-error" : undefined}
                />
              </div>
              <div className="field inline">
                <label htmlFor={`p-rate-${i}`}>Rate</label>
                <input
                  id={`p-rate-${i}`}
                  value={row.rate}
                  onChange={(e) => setRow(i, "rate", e.target.value)}
                  inputMode="decimal"
                  placeholder="60"
                  autoComplete="off"
                  aria-invalid={errors.throughput ? true : undefined}
                  aria-describedby={errors.throughput ? "p-throughput-error" : undefined}
                />
              </div>
              <button
                type="button"
                className="button small"
                onClick={() => setForm((f) => ({ ...f, throughput: f.throughput.filter((_, j) => j !== i) }))}
              >
                Remove<span className="visually-hidden"> window {i + 1}</span>
              </button>
            </div>
          ))}
          <button
            type="button"
            id="p-throughput-add"
            className="button small"
            disabled={form.throughput.length >= MAX_WINDOWS}
            onClick={() => setForm((f) => ({ ...f, throughput: [...f.throughput, { window: "", rate: "" }] }))}
          >
            Add window
          </button>
          <FieldError id="p-throughput-error" text={errors.throughput} />
        </fieldset>
      </fieldset>

      <fieldset className="group">
        <legend>Retries</legend>
        <div className="row-3">
          <div className="field">
            <label htmlFor="p-retryStrategy">Strategy</label>
            <select id="p-retryStrategy" value={form.retryStrategy} onChange={(e) => set("retryStrategy", e.target.value as RetryStrategy)}>
              <option value="none">None</option>
              <option value="fixed">Fixed delay</option>
              <option value="exponential">Exponential backoff</option>
            </select>
          </div>
          {retrying && (
            <div className="field">
              <label htmlFor="p-retryOn">Retry on</label>
              <select id="p-retryOn" value={form.retryOn} onChange={(e) => set("retryOn", e.target.value as RetryOn)}>
                <option value="network_only">Network failures only</option>
                <option value="5xx_and_network">5xx and network failures</option>
                <option value="non_2xx">Any non-2xx response</option>
              </select>
            </div>
          )}
        </div>
        {retrying && (
          <>
            <div className="row-3">
              <TextField name="retryInitialDelaySeconds" label="Initial delay (seconds)" hint="0 to 86400; required." form={form} errors={errors} set={set} />
              <TextField name="retryMaxDelaySeconds" label="Max delay (seconds)" hint="Caps exponential delays; empty for no cap." form={form} errors={errors} set={set} />
              <TextField name="retryMaxAttempts" label="Max attempts" hint="Including the first; empty for unlimited." form={form} errors={errors} set={set} />
            </div>
            <div className="field checkbox">
              <input id="p-retryJitter" type="checkbox" checked={form.retryJitter} onChange={(e) => set("retryJitter", e.target.checked)} />
              <label htmlFor="p-retryJitter">Jitter (multiply each delay by a random 0.5–1.5)</label>
            </div>
          </>
        )}
      </fieldset>

      <div className="form-actions">
        <button type="submit" className="button primary" disabled={busy}>
          {busy ? "Saving…" : editing.mode === "create" ? "Create policy" : "Save changes"}
        </button>
        <button type="button" className="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}
