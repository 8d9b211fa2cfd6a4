// Types of quick.mjs, for the test suite's type check; the bench itself is
// plain JavaScript run with node.
export interface Config {
  label: string;
  concurrency: number;
  services: Record<string, unknown>;
}

export interface BenchContext {
  pgServerUrl: string;
  redisUrl: string;
  runId: string;
  close(): Promise<void>;
}

/** One firing measurement (lib/firing.mjs). */
export interface Firing {
  complete: boolean;
  count: number;
  received: number;
  early: number;
  missed: number;
  duplicated: number;
  strays: number;
  lateness: { p50: number; p99: number; p999: number; max: number };
  /** the services' last output, when not every trigger arrived */
  tail?: string;
}

export interface Burst extends Firing {
  drainS: number;
  firesPerS: number;
  /** |arrival rank − claim rank| */
  order: { p99: number; max: number };
}

export interface ScenarioOptions {
  quick?: boolean;
  config: Config;
  log?: (message: string) => void;
}

export const tuned: Config;
export function openBench(opts?: { log?: (m: string) => void; pgServerUrl?: string; redisUrl?: string }): Promise<BenchContext>;
export function steadyOnce(ctx: BenchContext, opts: ScenarioOptions & { rates?: number[]; seconds?: number }): Promise<Record<string, Firing>>;
export function baselineSteadyOnce(ctx: BenchContext, opts: ScenarioOptions & { rates?: number[]; seconds?: number }): Promise<Record<string, Firing>>;
export function burstOnce(ctx: BenchContext, opts: ScenarioOptions & { count?: number }): Promise<Burst>;
export function baselineBurstOnce(ctx: BenchContext, opts: ScenarioOptions & { count?: number }): Promise<Burst>;
