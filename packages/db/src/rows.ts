// Shapes of the rows the named SQL statements return.

export type TriggerStatus = "registered" | "skipped" | "queued" | "running" | "retrying" | "completed" | "cancelled";
export type GeneratorStatus = "active" | "cancelled";
export type RequestSource = "schedule" | "item";

export interface ProjectRow {
  id: string;
  name: string;
  monthlyQuota: number;
}

export interface TriggerRef {
  id: string;
  status: TriggerStatus;
  generatorId: string | null;
  customKey?: string | null;
}

export interface GeneratorRef {
  id: string;
  status: GeneratorStatus;
  customKey: string | null;
  cronExpr: string;
  tz: string;
  /** its latest run cancelled on its own (skip_cancelled_runs.sql), if any */
  skipThrough: Date | null;
}

/** A stored request as the api writes it. */
export interface RequestFields {
  title: string | null;
  url: string;
  method: string;
  /** ordered [name, value] pairs */
  headers: Array<[string, string]>;
  body: Uint8Array | null;
  tags: string[];
  source: RequestSource;
}
