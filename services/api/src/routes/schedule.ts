// /schedule, any method (docs/api/schedule.md). The checks run in the order that
// page lists them; only the first failure is reported.
import type { Request, Response } from "express";
import {
  badRequest,
  checkCustomKey,
  checkScheduleTags,
  checkTitle,
  emptyBadRequest,
  forwardedHeaders,
  methodCarriesBody,
  parseScheduledAt,
  parseTagsHeader,
  quotaExceeded,
} from "@ttr/core";
import type { Deps } from "../deps.js";
import { ApiKeys } from "../auth/api-key.js";
import { MiB, readBody } from "../http/body.js";
import { header, missingKeyReason, textHeader } from "../http/headers.js";
import { applyPlainOneShot, applySchedule, isPlainOneShot, type ScheduleCall } from "../schedule/apply.js";
import { OneShotInserts } from "../schedule/inserts.js";
import { QuotaUnits } from "../schedule/quota.js";

function isAbsoluteUrl(value: string): boolean {
  if (value.trim() === "") return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** `YYYY-MM` of the request moment, the quota's calendar month in UTC (docs/quota.md). */
const monthOf = (d: Date) => d.toISOString().slice(0, 7);

export function scheduleRoute(deps: Deps) {
  const keys = new ApiKeys(deps.pg);
  const quota = new QuotaUnits(deps.pg);
  const inserts = new OneShotInserts(deps.pg);
  return async (req: Request, res: Response): Promise<void> => {
    const now = new Date();
    const apiKey = header(req, "ttr-api-key");
    const url = textHeader(req, "ttr-url");
    if (apiKey === undefined) throw emptyBadRequest(missingKeyReason(req));
    if (url === undefined) throw emptyBadRequest("ttr-url header is required");

    const method = req.method.toUpperCase();
    const body = methodCarriesBody(method) ? await readBody(req, MiB, "1 MiB") : null;

    if (!isAbsoluteUrl(url)) throw badRequest(`Invalid URL: ${url}`);
    const tags = parseTagsHeader(header(req, "ttr-tags"));
    checkScheduleTags(tags);
    const title = textHeader(req, "ttr-title") ?? null;
    if (title !== null) checkTitle(title);
    const customKey = textHeader(req, "ttr-custom-key");
    if (customKey !== undefined) checkCustomKey(customKey);

    const project = await keys.project(apiKey);
    const when = parseScheduledAt(header(req, "ttr-scheduled-at"), now);

    const remaining = await quota.take(project.id, monthOf(now));
    if (remaining === null) throw quotaExceeded(project.monthlyQuota);

    const triggerId = header(req, "ttr-trigger-id");
    const call: ScheduleCall = {
      projectId: project.id,
      now,
      when,
      customKey: customKey === undefined || customKey === "" ? null : customKey,
      triggerId: triggerId === undefined || triggerId === "" ? null : triggerId,
      runMissed: header(req, "ttr-run-missed") === "true",
      request: {
        title,
        url,
        method,
        headers: forwardedHeaders(req.rawHeaders),
        body: body && body.length > 0 ? body : null,
        tags,
        source: "schedule",
      },
    };
    const result = isPlainOneShot(call) ? await applyPlainOneShot(inserts, call) : await deps.db.$transaction((tx) => applySchedule(tx, call));
    res.status(200).json({
      triggerId: result.triggerId,
      scheduledAt: result.scheduledAt.toISOString(),
      operation: result.operation,
      kind: result.kind,
      monthQuotaRemaining: remaining,
    });
  };
}
