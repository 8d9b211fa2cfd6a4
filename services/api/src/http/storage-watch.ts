// A request still waiting after a few seconds is either slow (a large
// /declare, a lock another call holds, a busy pool) or waiting on a
// PostgreSQL that has stopped answering: frozen, swapping, or behind a
// network path that drops packets, where nothing is refused and nothing
// answers. /schedule's and /cancel's statements have a bound of their own
// (main.ts); the rest cannot, since their statements may rightly take long.
// So the watch tells the two cases apart from outside: once a request has
// waited WATCH_EVERY_MS, it asks a connection of its own whether the server
// answers a trivial statement. If it does, the request goes on waiting and
// is asked about again WATCH_EVERY_MS later; if not, the request answers
// 503 Unavailable at once, within the 5 s RELIABILITY.md promises, and is
// marked abandoned: a transaction of it that gets as far as its end once
// the server answers again rolls back instead of committing (stillWanted).
import type { RequestHandler, Response } from "express";

/** How long a request waits before the watch asks whether PostgreSQL answers, and again after each yes. */
export const WATCH_EVERY_MS = 2500;

/** How long the watch waits for that answer: no answer in time reads as no. */
export const PROBE_MS = 1500;

const ABANDONED = "storageWatchAnswered";

/** Thrown inside a transaction whose request the watch has already answered, so that it rolls back. */
export class Abandoned extends Error {
  constructor() {
    super("the request was answered 503 while it waited for PostgreSQL");
  }
}

/** Call at the end of a transaction's work, before its commit: throws Abandoned when the request was answered meanwhile. */
export function stillWanted(res: Response): void {
  if (res.locals[ABANDONED] === true) throw new Abandoned();
}

export interface StorageWatch {
  /** whether PostgreSQL answers a trivial statement now; bounded here by PROBE_MS */
  answers(): Promise<boolean>;
  /** writes the 503 of a storage outage (the same as a failed statement's) */
  unavailable(res: Response): void;
}

export function watchStorage(watch: StorageWatch): RequestHandler {
  const probe = oneAtATime(() => withinProbeTime(watch.answers()));
  return (_req, res, next) => {
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const check = () => {
      void probe().then((ok) => {
        if (done || res.headersSent) return;
        if (ok) {
          timer = setTimeout(check, WATCH_EVERY_MS);
          return;
        }
        res.locals[ABANDONED] = true;
        watch.unavailable(res);
      });
    };
    timer = setTimeout(check, WATCH_EVERY_MS);
    res.once("close", () => {
      done = true;
      clearTimeout(timer);
    });
    next();
  };
}

/** Concurrent callers share the probe in flight rather than each sending one. */
function oneAtATime(run: () => Promise<boolean>): () => Promise<boolean> {
  let running: Promise<boolean> | null = null;
  return () => {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  };
}

function withinProbeTime(answer: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), PROBE_MS);
  });
  return Promise.race([answer.catch(() => false), late]).finally(() => clearTimeout(timer));
}
