// Dashboard sessions in tests: a user for a project, signed in, and calls
// that carry the session cookie (docs/api/dashboard-api.md).
import { randomBytes } from "node:crypto";
import { createProject, createUser } from "@ttr/db";
import type { TestApi } from "./api.js";
import type { Reply } from "./http.js";

export interface TestSession {
  userId: string;
  projectId: string;
  email: string;
  password: string;
  /** the `Cookie` header value, `ttr_session=<token>` */
  cookie: string;
  /** send with the session cookie (and a JSON Content-Type when `json` is given) */
  call(method: string, path: string, headers?: Record<string, string | undefined>, json?: unknown): Promise<Reply>;
  get<T = any>(path: string): Promise<T>;
}

/** The `name=value` part of a Set-Cookie header for the session cookie. */
export function sessionCookieOf(reply: Reply): string {
  const set = reply.headers["set-cookie"]?.find((c) => c.startsWith("ttr_session="));
  if (!set) throw new Error(`no ttr_session cookie in ${reply.status} ${reply.text}`);
  return set.split(";")[0]!;
}

export function login(api: TestApi, email: string, password: string, headers: Record<string, string | undefined> = {}): Promise<Reply> {
  return api.call("POST", "/auth/login", { "Content-Type": "application/json", ...headers }, JSON.stringify({ email, password }));
}

/** Creates a user in `projectId` (the api's own project by default) and signs in. */
export async function signIn(api: TestApi, opts: { projectId?: string; email?: string; password?: string } = {}): Promise<TestSession> {
  const projectId = opts.projectId ?? api.projectId;
  const email = opts.email ?? `user-${randomBytes(4).toString("hex")}@example.com`;
  const password = opts.password ?? "correct horse battery staple";
  const { userId } = await createUser(api.db, projectId, email, password);
  const res = await login(api, email, password);
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
  const cookie = sessionCookieOf(res);
  const call = (method: string, path: string, headers: Record<string, string | undefined> = {}, json?: unknown) =>
    json === undefined
      ? api.call(method, path, { Cookie: cookie, ...headers })
      : api.call(method, path, { Cookie: cookie, "Content-Type": "application/json", ...headers }, JSON.stringify(json));
  return {
    userId,
    projectId,
    email: email.toLowerCase(),
    password,
    cookie,
    call,
    async get(path) {
      const res = await call("GET", path);
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text}`);
      return res.json();
    },
  };
}

/** A second project with its own API key and a signed-in user, for isolation tests. */
export async function otherProject(api: TestApi, name = "other"): Promise<{ projectId: string; apiKey: string; session: TestSession }> {
  const { projectId, apiKey } = await createProject(api.db, name, 1000);
  return { projectId, apiKey, session: await signIn(api, { projectId }) };
}

// ---- rows written straight to the tables, to set up dashboard states -------

export interface SeedTrigger {
  status?: string;
  createdAt?: Date;
  tags?: string[];
  customKey?: string | null;
  title?: string | null;
  generatorId?: string | null;
  attempts?: number;
  scheduledAt?: Date;
  headers?: Array<[string, string]>;
  body?: Buffer | null;
  url?: string;
  method?: string;
}

export async function seedTrigger(api: TestApi, projectId: string, t: SeedTrigger = {}): Promise<string> {
  const rows = await api.db.$queryRawUnsafe<Array<{ id: string }>>(
    `INSERT INTO triggers (id, project_id, generator_id, custom_key, status, title, url, method, headers, body, tags,
                           scheduled_at, attempts, created_at, updated_at)
     VALUES (gen_random_uuid(), $1::uuid, $2::uuid, $3, $4::trigger_status, $5, $6, $7, $8::jsonb, $9, $10::text[],
             $11, $12, $13, $13)
     RETURNING id::text`,
    projectId, t.generatorId ?? null, t.customKey ?? null, t.status ?? "registered", t.title ?? null,
    t.url ?? "http://127.0.0.1:9/hook", t.method ?? "POST", JSON.stringify(t.headers ?? []), t.body ?? null, t.tags ?? [],
    t.scheduledAt ?? new Date(Date.now() + 3600_000), t.attempts ?? 0, t.createdAt ?? new Date(),
  );
  return rows[0]!.id;
}

export async function seedGenerator(
  api: TestApi,
  projectId: string,
  g: { status?: string; createdAt?: Date; tags?: string[]; customKey?: string | null; cronExpr?: string; tz?: string } = {},
): Promise<string> {
  const rows = await api.db.$queryRawUnsafe<Array<{ id: string }>>(
    `INSERT INTO generators (id, project_id, custom_key, status, title, cron_expr, tz, url, method, headers, body, tags,
                             created_at, updated_at)
     VALUES (gen_random_uuid(), $1::uuid, $2, $3::generator_status, 'gen', $4, $5, 'http://127.0.0.1:9/cron', 'GET',
             '[]', NULL, $6::text[], $7, $7)
     RETURNING id::text`,
    projectId, g.customKey ?? null, g.status ?? "active", g.cronExpr ?? "*/5 * * * *", g.tz ?? "UTC", g.tags ?? [],
    g.createdAt ?? new Date(),
  );
  return rows[0]!.id;
}

export interface SeedExecution {
  attemptNumber: number;
  triggeredBy?: string;
  status?: string;
  plannedAt?: Date;
  startedAt?: Date | null;
  completedAt?: Date | null;
  responseStatus?: number | null;
  responseHeaders?: Record<string, string> | null;
  responseBody?: string | null;
  responseSize?: number | null;
  errorMessage?: string | null;
  isDeadLetter?: boolean;
  createdAt?: Date;
  /** when the scheduler handed the planned attempt to the queue */
  dispatchedAt?: Date | null;
  /** the tag whose policy holds the planned attempt back */
  heldBy?: string | null;
}

export async function seedExecution(api: TestApi, projectId: string, triggerId: string, e: SeedExecution): Promise<string> {
  const rows = await api.db.$queryRawUnsafe<Array<{ id: string }>>(
    `INSERT INTO executions (id, part_day, trigger_id, project_id, attempt_number, triggered_by, status, planned_at, started_at,
                             completed_at, response_status, response_headers, response_body, response_size, error_message,
                             is_dead_letter, created_at, dispatched_at, held_by)
     SELECT gen_random_uuid(), t.part_day, $1::uuid, $2::uuid, $3, $4::triggered_by, $5::execution_status, $6, $7, $8, $9, $10::jsonb,
             $11, $12, $13, $14, $15, $16, $17
     FROM triggers t WHERE t.id = $1::uuid
     RETURNING id::text`,
    triggerId, projectId, e.attemptNumber, e.triggeredBy ?? "scheduler", e.status ?? "complete", e.plannedAt ?? new Date(),
    e.startedAt ?? null, e.completedAt ?? null, e.responseStatus ?? null,
    e.responseHeaders == null ? null : JSON.stringify(e.responseHeaders), e.responseBody ?? null, e.responseSize ?? null,
    e.errorMessage ?? null, e.isDeadLetter ?? false, e.createdAt ?? new Date(), e.dispatchedAt ?? null, e.heldBy ?? null,
  );
  const id = rows[0]!.id;
  // An ended attempt is counted per minute by the statement that records it
  // (finish_attempts.sql); a seeded one is counted here by the same function.
  if (e.completedAt) {
    await api.db.$queryRawUnsafe(
      `SELECT ttr_count_attempts(array_agg(e.project_id), array_agg(e.completed_at), array_agg(e.response_status), array_agg(e.error_message IS NOT NULL),
                                 array_agg(e.is_dead_letter), array_agg(e.attempt_number), array_agg(e.started_at), array_agg(e.planned_at)) AS n
       FROM executions e WHERE e.id = $1::uuid`,
      id,
    );
  }
  return id;
}
