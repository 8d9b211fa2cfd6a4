// The session API client: same origin, the HttpOnly session cookie sent by
// the browser (SameSite=Strict), JSON in and out. Every failure becomes an
// ApiError carrying the status and the API's `{_tag, message}` when there is
// one. A 401 on any call but sign-in means the session is gone: listeners
// registered with onSessionLost send the person back to sign-in.
import type { DeadLetterSelection, Execution, Overview, PolicyFields, Project, ScheduleResult, StatsBucket, TagPolicy, Trigger, TriggerBody } from "./types";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly tag: string | null,
    message: string,
    /** seconds from a Retry-After header (429) */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

type Listener = () => void;
const sessionLost = new Set<Listener>();

export function onSessionLost(listener: Listener): () => void {
  sessionLost.add(listener);
  return () => sessionLost.delete(listener);
}

/** A message for statuses that come without the API's own text. */
function fallbackMessage(status: number): string {
  if (status === 0) return "The server could not be reached. Check your connection and try again.";
  if (status === 400) return "The server rejected the request as malformed.";
  if (status === 403) return "The request was refused.";
  if (status === 404) return "Not found.";
  if (status === 503) return "The service is unavailable. Try again shortly.";
  return `The server answered ${status}.`;
}

/**
 * How a call is made. `background` marks the dashboard's own timed
 * refreshes (see polling.ts): they say so with `X-TTR-Background: 1`, so
 * that they do not count as activity for the session's idle expiry. It is
 * given per call, never as a mode, so that what the person does while a
 * refresh is out still counts.
 */
export interface CallOptions {
  background?: boolean;
}

async function call<T>(method: string, path: string, body?: unknown, opts: CallOptions & { signIn?: boolean } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...(opts.background ? { "X-TTR-Background": "1" } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, null, fallbackMessage(0));
  }
  if (res.status === 204) return undefined as T;
  // A 400 from /tag-policies can have an empty body and no Content-Type (docs/api/errors.md).
  const isJson = (res.headers.get("content-type") ?? "").includes("application/json");
  const data: unknown = isJson ? await res.json().catch(() => null) : null;
  if (res.ok) return data as T;

  const err = data as { _tag?: unknown; message?: unknown } | null;
  const message = typeof err?.message === "string" && err.message !== "" ? err.message : fallbackMessage(res.status);
  const tag = typeof err?._tag === "string" ? err._tag : null;
  const retryAfter = Number(res.headers.get("retry-after")) || null;
  if (res.status === 401 && !opts.signIn) for (const l of [...sessionLost]) l();
  throw new ApiError(res.status, tag, message, retryAfter);
}

const q = (params: Record<string, string | number | null | undefined>): string => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") s.set(k, String(v));
  const text = s.toString();
  return text === "" ? "" : `?${text}`;
};

export interface TriggerFilter {
  status?: string;
  tag?: string;
  kind?: string;
  customKey?: string;
  generatorId?: string;
}

export const api = {
  signIn: (email: string, password: string) =>
    call<{ user: { id: string; email: string }; project: { id: string; name: string } }>("POST", "/auth/login", { email, password }, { signIn: true }),
  signOut: () => call<void>("POST", "/auth/logout"),

  triggers: (f: TriggerFilter, limit: number, cursor: string | null, opts?: CallOptions) =>
    call<{ triggers: Trigger[]; nextCursor: string | null }>("GET", `/triggers${q({ ...f, limit, cursor })}`, undefined, opts),
  trigger: (id: string, opts?: CallOptions) =>
    call<{ trigger: Trigger; executions: Execution[] }>("GET", `/triggers/${encodeURIComponent(id)}`, undefined, opts),
  createTrigger: (body: TriggerBody) => call<ScheduleResult>("POST", "/triggers", body),
  editTrigger: (id: string, body: TriggerBody) => call<ScheduleResult>("PUT", `/triggers/${encodeURIComponent(id)}`, body),
  cancelTrigger: (id: string) => call<void>("DELETE", `/triggers/${encodeURIComponent(id)}`),
  replay: (id: string) => call<{ execution: Execution }>("POST", `/triggers/${encodeURIComponent(id)}/replay`),
  retry: (id: string) => call<{ execution: Execution }>("POST", `/triggers/${encodeURIComponent(id)}/retry`),

  deadLetters: (limit: number, cursor: string | null, opts?: CallOptions) =>
    call<{ executions: Execution[]; nextCursor: string | null }>("GET", `/executions${q({ deadLetterOnly: "true", limit, cursor })}`, undefined, opts),

  /** POST /dead-letters/replay or /discard; with dryRun only counts. */
  deadLettersBulk: (action: "replay" | "discard", selection: DeadLetterSelection, dryRun: boolean) =>
    call<{ count: number; dryRun: boolean }>("POST", `/dead-letters/${action}`, dryRun ? { ...selection, dryRun: true } : selection),

  project: (opts?: CallOptions) => call<{ project: Project }>("GET", "/project", undefined, opts),
  stats: (minutes: number, opts?: CallOptions) => call<{ buckets: StatsBucket[] }>("GET", `/stats${q({ minutes })}`, undefined, opts),
  overview: (minutes: number, opts?: CallOptions) => call<Overview>("GET", `/overview${q({ minutes })}`, undefined, opts),

  policies: (opts?: CallOptions) => call<{ tagPolicies: TagPolicy[] }>("GET", "/tag-policies", undefined, opts),
  createPolicy: (fields: PolicyFields) => call<{ tagPolicy: TagPolicy }>("POST", "/tag-policies", fields),
  updatePolicy: (id: string, changed: Partial<PolicyFields>) =>
    call<{ tagPolicy: TagPolicy }>("PUT", `/tag-policies/${encodeURIComponent(id)}`, changed),
  setPaused: (id: string, paused: boolean) => call<{ tagPolicy: TagPolicy }>("PUT", `/tag-policies/${encodeURIComponent(id)}`, { paused }),
  deletePolicy: (id: string) => call<{ ok: true }>("DELETE", `/tag-policies/${encodeURIComponent(id)}`),
};

export function errorText(e: unknown): string {
  return e instanceof ApiError ? e.message : e instanceof Error ? e.message : String(e);
}
