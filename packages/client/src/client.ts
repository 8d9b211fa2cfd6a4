// TtrClient: one method per endpoint of ttr's api, each resolving with the
// answer's body as the OpenAPI document types it, or rejecting with a
// TtrError (errors.ts).
import { type Fetch, Transport } from "./http.js";
import { type ScheduleOptions, scheduleRequest, ttrHeaderValue } from "./schedule.js";
import type {
  BulkBody,
  BulkResult,
  CallOptions,
  DeclareBody,
  DeadLetterBulkResult,
  DeadLetterSelection,
  DeclareResult,
  Deleted,
  ExecutionAnswer,
  ExecutionList,
  Health,
  ListExecutionsQuery,
  ListTriggersQuery,
  LoginBody,
  LoginResult,
  Overview,
  OverviewQuery,
  ProjectAnswer,
  Readiness,
  ScheduleResult,
  Stats,
  StatsQuery,
  TagPolicyAnswer,
  TagPolicyCreate,
  TagPolicyList,
  TagPolicyUpdate,
  TriggerBody,
  TriggerDetail,
  TriggerList,
} from "./types.js";

export interface ClientOptions {
  /** where ttr's api answers, e.g. `http://localhost:8080` (a path below the host is kept) */
  baseUrl: string | URL;
  // `undefined` means absent, also under exactOptionalPropertyTypes (`apiKey: process.env.TTR_API_KEY`).
  /** a project's API key (`ttr_…`), sent as `ttr-api-key`; without one, sign in with login() */
  apiKey?: string | undefined;
  /** the fetch to use; the global one by default */
  fetch?: Fetch | undefined;
}

/** Which trigger /cancel means: by ID or by custom key. */
export type CancelTarget = { triggerId: string; customKey?: never } | { customKey: string; triggerId?: never };

const SESSION_COOKIE = "ttr_session";
const enc = encodeURIComponent;

export class TtrClient {
  private readonly http: Transport;

  constructor(options: ClientOptions) {
    const fetchFn: Fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.http = new Transport(options.baseUrl, fetchFn, { apiKey: options.apiKey, sessionCookie: undefined });
  }

  // ---- scheduling ----------------------------------------------------------

  /**
   * Creates or edits one trigger (`/schedule`, one unit of the monthly quota).
   * With `method: "HEAD"` the api answers no body, and this resolves with null.
   */
  schedule(options: ScheduleOptions & { method: "HEAD" | "head" }, call?: CallOptions): Promise<null>;
  schedule(options: ScheduleOptions, call?: CallOptions): Promise<ScheduleResult>;
  async schedule(options: ScheduleOptions, call: CallOptions = {}): Promise<ScheduleResult | null> {
    const req = scheduleRequest(options);
    const base = { method: req.method, path: "/schedule", headers: req.headers, body: req.body, signal: call.signal };
    if (req.method === "HEAD") {
      await this.http.empty(base);
      return null;
    }
    return this.http.json<ScheduleResult>(base);
  }

  /** Cancels a registered, skipped or retrying one-shot, or a recurring trigger (`DELETE /cancel`). */
  async cancel(target: CancelTarget, call: CallOptions = {}): Promise<void> {
    const headers: Record<string, string> = {};
    if (target.triggerId !== undefined) headers["ttr-trigger-id"] = target.triggerId;
    if (target.customKey !== undefined) headers["ttr-custom-key"] = ttrHeaderValue(target.customKey);
    await this.http.empty({ method: "DELETE", path: "/cancel", headers, signal: call.signal });
  }

  /** Makes the pending triggers carrying `body.tag` match `body.items` (`POST /declare`). */
  declare(body: DeclareBody, call: CallOptions = {}): Promise<DeclareResult> {
    return this.http.json({ method: "POST", path: "/declare", json: body, signal: call.signal });
  }

  /** Upserts and cancels many triggers in one all-or-nothing call (`POST /bulk`). */
  bulk(body: BulkBody, call: CallOptions = {}): Promise<BulkResult> {
    return this.http.json({ method: "POST", path: "/bulk", json: body, signal: call.signal });
  }

  // ---- tag policies ----------------------------------------------------------

  /** Every policy of the project, newest first (`GET /tag-policies`). */
  listTagPolicies(call: CallOptions = {}): Promise<TagPolicyList> {
    return this.http.json({ method: "GET", path: "/tag-policies", signal: call.signal });
  }

  /** Creates the tag's policy, or replaces it whole (`POST /tag-policies`). */
  putTagPolicy(policy: TagPolicyCreate, call: CallOptions = {}): Promise<TagPolicyAnswer> {
    return this.http.json({ method: "POST", path: "/tag-policies", json: policy, signal: call.signal });
  }

  /** Changes only the fields given; null clears a setting (`PUT /tag-policies/{id}`). */
  changeTagPolicy(id: string, change: TagPolicyUpdate, call: CallOptions = {}): Promise<TagPolicyAnswer> {
    return this.http.json({ method: "PUT", path: `/tag-policies/${enc(id)}`, json: change, signal: call.signal });
  }

  /** Deletes a policy (`DELETE /tag-policies/{id}`). */
  deleteTagPolicy(id: string, call: CallOptions = {}): Promise<Deleted> {
    return this.http.json({ method: "DELETE", path: `/tag-policies/${enc(id)}`, signal: call.signal });
  }

  // ---- outcomes: triggers, executions, usage -----------------------------------

  /** A page of triggers, newest first (`GET /triggers`). */
  listTriggers(query: ListTriggersQuery = {}, call: CallOptions = {}): Promise<TriggerList> {
    return this.http.json({ method: "GET", path: "/triggers", query: { ...query }, signal: call.signal });
  }

  /** Every page of triggers matching `query`, fetched as the loop asks for them. */
  async *triggerPages(query: ListTriggersQuery = {}, call: CallOptions = {}): AsyncGenerator<TriggerList, void, undefined> {
    let cursor = query.cursor;
    do {
      const page = await this.listTriggers({ ...query, cursor }, call);
      yield page;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** One trigger with its executions by attempt number (`GET /triggers/{id}`). */
  getTrigger(id: string, call: CallOptions = {}): Promise<TriggerDetail> {
    return this.http.json({ method: "GET", path: `/triggers/${enc(id)}`, signal: call.signal });
  }

  /**
   * Creates a trigger from fields rather than headers (`POST /triggers`, what
   * the dashboard's New trigger form sends): `/schedule`'s checks, rules,
   * answer and quota unit. A session or an API key.
   */
  createTrigger(trigger: TriggerBody, call: CallOptions = {}): Promise<ScheduleResult> {
    return this.http.json({ method: "POST", path: "/triggers", json: trigger, signal: call.signal });
  }

  /**
   * Replaces a registered one-shot (a date or `now`) or an active recurring
   * trigger (`cron(...)`) with `trigger` (`PUT /triggers/{id}`): `/schedule`
   * with `ttr-trigger-id`, one quota unit.
   */
  editTrigger(id: string, trigger: TriggerBody, call: CallOptions = {}): Promise<ScheduleResult> {
    return this.http.json({ method: "PUT", path: `/triggers/${enc(id)}`, json: trigger, signal: call.signal });
  }

  /** Cancels a trigger or recurring trigger by ID, as `/cancel` does (`DELETE /triggers/{id}`). */
  async cancelTrigger(id: string, call: CallOptions = {}): Promise<void> {
    await this.http.empty({ method: "DELETE", path: `/triggers/${enc(id)}`, signal: call.signal });
  }

  /** Sends a completed trigger's request again, as a `replay` attempt (`POST /triggers/{id}/replay`). */
  replayTrigger(id: string, call: CallOptions = {}): Promise<ExecutionAnswer> {
    return this.http.json({ method: "POST", path: `/triggers/${enc(id)}/replay`, signal: call.signal });
  }

  /** Sends a completed trigger's request again as a `retry`, or a retrying one's retry now (`POST /triggers/{id}/retry`). */
  retryTrigger(id: string, call: CallOptions = {}): Promise<ExecutionAnswer> {
    return this.http.json({ method: "POST", path: `/triggers/${enc(id)}/retry`, signal: call.signal });
  }

  /**
   * Replay now for the selected dead letters that are still their trigger's
   * latest attempt, at most 10,000 per call; `dryRun: true` only counts them
   * (`POST /dead-letters/replay`).
   */
  replayDeadLetters(selection: DeadLetterSelection = {}, call: CallOptions = {}): Promise<DeadLetterBulkResult> {
    return this.http.json({ method: "POST", path: "/dead-letters/replay", json: selection, signal: call.signal });
  }

  /**
   * Takes the selected dead letters off the dead-letter list (each keeps
   * `isDeadLetter`), at most 10,000 per call; `dryRun: true` only counts
   * them (`POST /dead-letters/discard`).
   */
  discardDeadLetters(selection: DeadLetterSelection = {}, call: CallOptions = {}): Promise<DeadLetterBulkResult> {
    return this.http.json({ method: "POST", path: "/dead-letters/discard", json: selection, signal: call.signal });
  }

  /** A page of executions, newest first (`GET /executions`). */
  listExecutions(query: ListExecutionsQuery = {}, call: CallOptions = {}): Promise<ExecutionList> {
    const { deadLetterOnly, ...rest } = query;
    return this.http.json({ method: "GET", path: "/executions", query: { ...rest, deadLetterOnly: deadLetterOnly ? "true" : undefined }, signal: call.signal });
  }

  /** Every page of executions matching `query`, fetched as the loop asks for them. */
  async *executionPages(query: ListExecutionsQuery = {}, call: CallOptions = {}): AsyncGenerator<ExecutionList, void, undefined> {
    let cursor = query.cursor;
    do {
      const page = await this.listExecutions({ ...query, cursor }, call);
      yield page;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** The project, its monthly quota and the units used this month (`GET /project`). */
  getProject(call: CallOptions = {}): Promise<ProjectAnswer> {
    return this.http.json({ method: "GET", path: "/project", signal: call.signal });
  }

  /** Outcomes per minute, oldest first (`GET /stats`). */
  getStats(query: StatsQuery = {}, call: CallOptions = {}): Promise<Stats> {
    return this.http.json({ method: "GET", path: "/stats", query: { ...query }, signal: call.signal });
  }

  /**
   * Lateness of first attempts per minute, the queue, held backlogs per tag
   * and the triggers due in the next hour (`GET /overview`).
   */
  getOverview(query: OverviewQuery = {}, call: CallOptions = {}): Promise<Overview> {
    return this.http.json({ method: "GET", path: "/overview", query: { ...query }, signal: call.signal });
  }

  // ---- dashboard sessions --------------------------------------------------------

  /**
   * Signs in with a dashboard user's email and password (`POST /auth/login`).
   * Without an API key, later calls then carry the session: in Node the client
   * keeps the `ttr_session` cookie itself; in a browser the browser does.
   */
  async login(body: LoginBody, call: CallOptions = {}): Promise<LoginResult> {
    const login = { method: "POST", path: "/auth/login", json: body, auth: false, signal: call.signal };
    const res = await this.http.send(login);
    const result = await this.http.readJson<LoginResult>(login, res);
    const cookie = res.headers.getSetCookie?.().find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    if (cookie !== undefined) this.http.credentials.sessionCookie = cookie.split(";")[0];
    return result;
  }

  /** Ends the session that login() started (`POST /auth/logout`). */
  async logout(call: CallOptions = {}): Promise<void> {
    const cookie = this.http.credentials.sessionCookie;
    await this.http.empty({ method: "POST", path: "/auth/logout", auth: false, headers: cookie === undefined ? {} : { cookie }, signal: call.signal });
    this.http.credentials.sessionCookie = undefined;
  }

  // ---- the service ----------------------------------------------------------------

  /** Liveness: `{status: "ok"}` while the process is up (`GET /healthz`). */
  health(call: CallOptions = {}): Promise<Health> {
    return this.http.json({ method: "GET", path: "/healthz", auth: false, signal: call.signal });
  }

  /**
   * Readiness (`GET /readyz`): `{status: "ready"}`, or `{status: "unavailable", down}`
   * when PostgreSQL or Redis does not answer (a 503, returned here, not thrown).
   */
  readiness(call: CallOptions = {}): Promise<Readiness> {
    return this.http.json({ method: "GET", path: "/readyz", auth: false, accept: [503], signal: call.signal });
  }

  /** The Prometheus text of the api's metrics (`GET /metrics`). */
  async metrics(call: CallOptions = {}): Promise<string> {
    const metrics = { method: "GET", path: "/metrics", auth: false, signal: call.signal };
    return this.http.readText(metrics, await this.http.send(metrics));
  }

  /** The OpenAPI 3.1 document this api serves (`GET /openapi.json`). */
  openApiDocument(call: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.http.json({ method: "GET", path: "/openapi.json", auth: false, signal: call.signal });
  }
}

/** A client for the api at `baseUrl`. */
export function createClient(options: ClientOptions): TtrClient {
  return new TtrClient(options);
}
