// Types of scripts/audit.mjs, for the tests that import it.
export interface Judged {
  module: string;
  severity: string;
  title: string;
  patched: string;
  url?: string;
  blocking: boolean;
}
export function judge(report: unknown): Judged[];
export function unreachable(stdout: string, stderr: string): string | null;
