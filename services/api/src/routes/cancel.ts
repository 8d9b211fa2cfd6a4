// DELETE /cancel (docs/api/cancel.md, checks in the order that page lists).
import type { Request, Response } from "express";
import { badRequest, emptyBadRequest, gone, notFound } from "@ttr/core";
import * as t from "@ttr/db";
import type { SqlRunner } from "@ttr/db";
import type { Deps } from "../deps.js";
import { projectForKey } from "../auth/api-key.js";
import { header, textHeader } from "../http/headers.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const notCancellable = (status: string) => gone(`Job is no longer cancellable (status=${status})`);

/** An empty value counts as not sent. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === "" ? undefined : value;
}

async function cancelById(tx: SqlRunner, projectId: string, id: string): Promise<void> {
  if (!UUID.test(id)) throw notFound("Job not found");
  const generator = await t.findGeneratorById(tx, projectId, id);
  if (generator) {
    if (generator.status !== "active") throw gone("Generator already cancelled");
    await t.cancelGenerator(tx, projectId, id);
    return;
  }
  const trigger = await t.findTriggerById(tx, projectId, id);
  if (!trigger) throw notFound("Job not found");
  if (!(await t.cancelTrigger(tx, projectId, id))) throw notCancellable(trigger.status);
}

/** Rule 3: when a recurring trigger and a one-shot share the key, the recurring one goes first. */
async function cancelByKey(tx: SqlRunner, projectId: string, key: string): Promise<void> {
  await t.lockCustomKey(tx, projectId, key);
  const generator = await t.findActiveGeneratorByKey(tx, projectId, key);
  if (generator) {
    await t.cancelGenerator(tx, projectId, generator.id);
    return;
  }
  const pending = await t.findPendingTriggerByKey(tx, projectId, key);
  if (pending) {
    await t.cancelTrigger(tx, projectId, pending.id);
    return;
  }
  // Only a queued, running or finished one-shot holds the key: say which.
  const latest = await t.findLatestTriggerByKey(tx, projectId, key);
  if (!latest || latest.status === "cancelled") throw notFound("Job not found");
  throw notCancellable(latest.status);
}

export function cancelRoute(deps: Deps) {
  return async (req: Request, res: Response): Promise<void> => {
    if (req.headers["ttr-api-key"] === undefined) throw emptyBadRequest();
    const triggerId = nonEmpty(header(req, "ttr-trigger-id"));
    const customKey = nonEmpty(textHeader(req, "ttr-custom-key"));
    if (triggerId === undefined && customKey === undefined) {
      throw badRequest("Must provide either ttr-trigger-id or ttr-custom-key header");
    }
    if (triggerId !== undefined && customKey !== undefined) {
      throw badRequest("Provide either ttr-trigger-id or ttr-custom-key, not both");
    }
    const project = await projectForKey(deps.db, String(req.headers["ttr-api-key"]));
    await deps.db.$transaction((tx) =>
      triggerId !== undefined ? cancelById(tx, project.id, triggerId) : cancelByKey(tx, project.id, customKey!),
    );
    res.status(204).end();
  };
}
