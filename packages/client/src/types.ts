// The bodies the client sends and receives, named after the schemas of ttr's
// OpenAPI document (src/generated/openapi.ts, generated from it).
import type { components, operations } from "./generated/openapi.js";

type Schemas = components["schemas"];

/** The JSON body of an operation's answer with status `S`. */
export type Answer<Op extends keyof operations, S extends keyof operations[Op]["responses"]> = operations[Op]["responses"][S] extends {
  content: { "application/json": infer B };
}
  ? B
  : never;

type Query<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;

/**
 * `T` with each property optional and taking `undefined` for absent, also
 * under exactOptionalPropertyTypes: a caller passes filters it may not have.
 */
type Loose<T> = { [K in keyof T]?: T[K] | undefined };

export type ScheduleResult = Schemas["ScheduleResult"];
export type Item = Schemas["Item"];
export type DeclareBody = Schemas["DeclareBody"];
export type DeclareResult = Schemas["DeclareResult"];
export type Operation = Schemas["Operation"];
export type BulkBody = Schemas["BulkBody"];
export type BulkCancel = Schemas["Cancel"];
export type BulkResult = Schemas["BulkResult"];
export type Throughput = Schemas["Throughput"];
export type TagPolicy = Schemas["TagPolicy"];
export type TagPolicyCreate = Schemas["TagPolicyCreate"];
export type TagPolicyUpdate = Schemas["TagPolicyUpdate"];
export type Trigger = Schemas["Trigger"];
export type Execution = Schemas["Execution"];
export type TriggerList = Schemas["TriggerList"];
export type TriggerDetail = Schemas["TriggerDetail"];
export type ExecutionList = Schemas["ExecutionList"];
export type ExecutionAnswer = Schemas["ExecutionAnswer"];
export type TriggerBody = Schemas["TriggerBody"];
export type DeadLetterSelection = Schemas["DeadLetterSelection"];
export type DeadLetterBulkResult = Schemas["DeadLetterBulkResult"];
export type LoginBody = Schemas["LoginBody"];
export type LoginResult = Schemas["LoginResult"];
export type ProjectAnswer = Schemas["ProjectAnswer"];
export type Project = ProjectAnswer["project"];
export type Stats = Schemas["Stats"];
export type StatsBucket = Stats["buckets"][number];
export type Overview = Schemas["Overview"];
export type LatenessBucket = Overview["lateness"][number];
export type Health = Schemas["Health"];
export type Readiness = Schemas["Readiness"];
export type TagPolicyList = Answer<"listTagPolicies", 200>;
export type TagPolicyAnswer = Answer<"putTagPolicy", 200>;
export type Deleted = Answer<"deleteTagPolicy", 200>;

/** Filters of `GET /triggers`; an empty string means no filter. */
export type ListTriggersQuery = Loose<Omit<Query<"listTriggers">, "limit">> & {
  /** page size, 1 to 500 (50 by default) */
  limit?: number | undefined;
};

/** Filters of `GET /executions`. */
export type ListExecutionsQuery = Loose<Omit<Query<"listExecutions">, "limit" | "deadLetterOnly">> & {
  /** `true`: dead letters only */
  deadLetterOnly?: boolean | undefined;
  /** page size, 1 to 500 (50 by default) */
  limit?: number | undefined;
};

export interface StatsQuery {
  /** how many minutes back, 1 to 1440 (60 by default) */
  minutes?: number | undefined;
}

/** The lateness window of `GET /overview`. */
export interface OverviewQuery {
  /** how many minutes back, 1 to 1440 (60 by default) */
  minutes?: number | undefined;
}

/** Options every method takes last. */
export interface CallOptions {
  /** aborts the request; the method then rejects with the signal's reason */
  signal?: AbortSignal | undefined;
}
