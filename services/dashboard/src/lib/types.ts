// The session API's shapes (docs/api/dashboard-api.md, docs/concepts.md). Absent values are null.

export type TriggerKind = "job" | "generator";

export type JobStatus = "registered" | "skipped" | "queued" | "running" | "retrying" | "completed" | "cancelled";
export type GeneratorStatus = "active" | "cancelled";

export interface Trigger {
  id: string;
  kind: TriggerKind;
  status: JobStatus | GeneratorStatus;
  customKey: string | null;
  title: string | null;
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
  tags: string[];
  scheduledAt: string | null;
  cronExpr: string | null;
  tz: string | null;
  generatorId: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What POST /triggers and PUT /triggers/<id> take: /schedule's request as fields. */
export interface TriggerBody {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | null;
  scheduledAt: string;
  customKey?: string | null;
  tags?: string[];
  title?: string | null;
  runMissed?: boolean;
}

/** The answer of /schedule, POST /triggers and PUT /triggers/<id>. */
export interface ScheduleResult {
  triggerId: string;
  scheduledAt: string;
  operation: "schedule" | "reschedule";
  kind: TriggerKind;
  monthQuotaRemaining: number;
}

export interface Execution {
  id: string;
  triggerId: string;
  attemptNumber: number;
  triggeredBy: "scheduler" | "retry" | "replay";
  status: "planned" | "started" | "complete" | "cancelled";
  plannedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  responseStatus: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  responseSize: number | null;
  errorMessage: string | null;
  isDeadLetter: boolean;
  /** a dead letter's notification to its tag policy's notifyUrl, once tried */
  notification?: { status: "retrying" | "sent" | "failed"; attempts: number; error: string | null };
}


export interface Project {
  id: string;
  name: string;
  monthlyQuota: number;
  usedThisMonth: number;
}

export interface StatsBucket {
  minute: string;
  success: number;
  httpFailure: number;
  networkFailure: number;
  deadLetters: number;
}

/** GET /overview (docs/api/dashboard-api.md); counts equal to `countLimit` mean at least that many. */
export interface Overview {
  countLimit: number;
  lateness: LatenessBucket[];
  queue: { waiting: number; oldestPlannedAt: string | null; running: number };
  held: Array<{ tag: string; held: number; oldestPlannedAt: string }>;
  upcoming: { slotMinutes: number; slots: Array<{ from: string; due: number }>; next: DueTrigger[] };
}

export interface LatenessBucket {
  minute: string;
  started: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export interface DueTrigger {
  id: string;
  customKey: string | null;
  title: string | null;
  url: string;
  method: string;
  tags: string[];
  scheduledAt: string;
  generatorId: string | null;
}

export type RetryStrategy = "none" | "fixed" | "exponential";
export type RetryOn = "network_only" | "5xx_and_network" | "non_2xx";

export interface TagPolicy {
  id: string;
  projectId: string;
  tag: string;
  throughput: Record<string, number> | null;
  maxConcurrent: number | null;
  requestTimeoutSeconds: number | null;
  retryStrategy: RetryStrategy;
  retryInitialDelaySeconds: number | null;
  retryMaxDelaySeconds: number | null;
  retryMaxAttempts: number | null;
  retryJitter: boolean;
  retryOn: RetryOn;
  /** present, and true, only while the tag is paused */
  paused?: true;
  createdAt: string;
  updatedAt: string;
}

/** The fields a person edits; POST sends all of them, PUT only those that changed. */
export type PolicyFields = Pick<
  TagPolicy,
  | "tag"
  | "throughput"
  | "maxConcurrent"
  | "requestTimeoutSeconds"
  | "retryStrategy"
  | "retryInitialDelaySeconds"
  | "retryMaxDelaySeconds"
  | "retryMaxAttempts"
  | "retryJitter"
  | "retryOn"
>;

/** Which dead letters a bulk replay or discard acts on (docs/api/dead-letters.md); all optional. */
export interface DeadLetterSelection {
  tag?: string;
  from?: string;
  to?: string;
}
