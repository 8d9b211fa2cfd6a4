// A trigger and an execution as ttr shows them outside: the dashboard's
// session API and the dead-letter notification body (docs/delivery-extras.md)
// give the same shapes. Absent values are null, never missing; times are
// ISO 8601 UTC with milliseconds.
import { headersObject } from "@ttr/core";
import type { DashboardTriggerRow, ExecutionRow } from "./dashboard.js";

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

/** Keeps a leading byte order mark (`ignoreBOM` means "do not strip it"), so the text is every stored byte. */
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

export function triggerJson(t: DashboardTriggerRow) {
  return {
    id: t.id,
    kind: t.kind,
    status: t.status,
    customKey: t.customKey,
    // A recurring trigger's title is stored (and compared by /declare) but
    // never shown (docs/concepts.md); its instances carry none.
    title: t.kind === "generator" ? null : t.title,
    url: t.url,
    method: t.method,
    headers: headersObject(t.headers),
    body: t.body === null ? null : utf8.decode(t.body),
    tags: t.tags,
    scheduledAt: iso(t.scheduledAt),
    cronExpr: t.cronExpr,
    tz: t.tz,
    generatorId: t.generatorId,
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
  };
}

/**
 * `notification` is there only for a dead letter whose tag policy has a
 * notifyUrl, once it was tried, and `discardedAt` only on a discarded dead
 * letter (docs/api/dead-letters.md): other executions keep their shape.
 */
export function executionJson(e: ExecutionRow) {
  return {
    id: e.id,
    triggerId: e.triggerId,
    attemptNumber: e.attemptNumber,
    triggeredBy: e.triggeredBy,
    status: e.status,
    plannedAt: iso(e.plannedAt),
    startedAt: iso(e.startedAt),
    completedAt: iso(e.completedAt),
    responseStatus: e.responseStatus,
    responseHeaders: e.responseHeaders,
    responseBody: e.responseBody,
    responseSize: e.responseSize,
    errorMessage: e.errorMessage,
    isDeadLetter: e.isDeadLetter,
    ...(e.notifyStatus == null ? {} : { notification: { status: e.notifyStatus, attempts: e.notifyAttempts ?? 0, error: e.notifyError ?? null } }),
    ...(e.discardedAt == null ? {} : { discardedAt: e.discardedAt.toISOString() }),
  };
}
