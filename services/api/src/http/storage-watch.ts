// A request still waiting after a few seconds is either slow (a large
// /declare, a lock another call holds, a busy pool) or waiting on a
// PostgreSQL that has stopped answering: frozen, swapping, or behind a
// network path that drops packets, where nothing is refused and nothing
// answers. /schedule's and /cancel's statements have a bound of their own
// (main.ts); the rest cannot, since their statements may rightly take long.
// So the watch tells the two cases apart from outside: once a request has
// waited WATCH_EVERY_MS, it asks a connection of its own whether the server
// answers a trivial statement. If it does, or refuses at once (down or
// restarting: the request's own statements fail as fast, and /schedule
// waits out a restart on purpose), the request goes on and is asked about
// again WATCH_EVERY_MS later. If the server says nothing within PROBE_MS,
// the request answers 503 Unavailable at once, within the 5 s RELIABILITY.md
// promises, and is marked abandoned: a transaction of it that gets as far
// as its end once the server answers again rolls back instead of
// committing (stillWanted, writeUnlessAnswered). Routes whose storage calls
// are bounded by themselves and which decide their own 503 (/schedule,
// /cancel, the dashboard's trigger edits) opt out (ownBounds).
import type { RequestHandler, Response } from "express";
import { isClientTimeout, retryConflicts, type SqlRunner } from "@ttr/db";

/** How long a request waits before the watch asks whether PostgreSQL answers, and again after each yes. */
export const WATCH_EVERY_MS = 2000;

/** How long the watch waits for that answer: silence this long means the server does not answer. */
export const PROBE_MS = 1500;

const ABANDONED = "storageWatchAnswered";
const OWN_BOUNDS = "storageWatchNotNeeded";

/** Thrown inside a transaction whose request the watch has already answered, so that it rolls back. */
class Abandoned extends Error {
  constructor() {
    super("the request was answered 503 while it waited for PostgreSQL");
  }
}

/** Marks a request whose storage calls have bounds of their own and which answers its own 503: the watch leaves it alone. */
export function ownBounds(res: Response): void {
  res.locals[OWN_BOUNDS] = true;
}

/** Call at the end of a transaction's work, before its commit: throws Abandoned when the request was answered meanwhile. */
function stillWanted(res: Response): void {
  if (res.locals[ABANDONED] === true) throw new Abandoned();
}

/** Prisma's limits for a write's transaction: how long to wait for a connection, how long it may run (ms). */
export interface TransactionLimits {
  maxWait?: number;
  timeout?: number;
}

/**
 * Runs a request's writes in one transaction that commits only if the
 * request is still unanswered at its end (stillWanted): writes that waited
 * out a frozen server would otherwise take effect after its 503. The
 * default limits let a 10,000-row dead-letter replay run past Prisma's 5 s.
 */
export function writeUnlessAnswered<T>(db: PrismaTransactions, res: Response, write: (tx: SqlRunner) => Promise<T>, limits: TransactionLimits = { timeout: 60_000 }): Promise<T> {
  // A deadlock's victim changed nothing and runs again (retryConflicts):
  // /declare and /bulk lock recurring triggers before their instances,
  // the scheduler and a cancel by an instance's ID the other way round.
  return retryConflicts(() =>
    db.$transaction(async (tx) => {
      const done = await write(tx);
      stillWanted(res);
      return done;
    }, limits),
  );
}

/** Prisma's client: transactions with limits of their own. */
interface PrismaTransactions {
  $transaction<T>(fn: (tx: SqlRunner) => Promise<T>, options: TransactionLimits): Promise<T>;
}

export interface StorageWatch {
  /** asks PostgreSQL a trivial statement now: resolves once it answers, whatever it answers; bounded here by PROBE_MS */
  answers(): Promise<unknown>;
  /** writes the 503 of a storage outage (the same as a failed statement's) */
  unavailable(res: Response): void;
}

export function watchStorage(watch: StorageWatch): RequestHandler {
  const probe = oneAtATime(() => heardWithinProbeTime(watch.answers()));
  return (_req, res, next) => {
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const check = () => {
      if (res.locals[OWN_BOUNDS] === true) return;
      const asked = Date.now();
      void probe().then((heard) => {
        if (done || res.headersSent || res.locals[OWN_BOUNDS] === true) return;
        if (heard) {
          timer = setTimeout(check, WATCH_EVERY_MS);
          return;
        }
        // A probe that took far longer than its deadline was held up by this
        // process's busy event loop (the connection's own time limits then
        // run out with the answer unread), not by the server: ask again.
        if (Date.now() - asked > 2 * PROBE_MS) {
          timer = setTimeout(check, 0);
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

/** A deadline's timer firing this much later than due means the event loop was busy meanwhile. */
const LATE_MS = 50;

/**
 * Whether the server said anything (an answer, an error of its own, a
 * refused connection) within PROBE_MS; node-postgres's own time limits
 * running out is silence. Silence is heard on a running event loop: while
 * the loop is busy (a 10 MiB declaration parsed and planned holds it for
 * seconds), answers wait unread and nothing is sent, so the time it was busy
 * does not count. When the deadline's timer fires late, it waits again for
 * as long as it was late (up to PROBE_MS more in all); once it fires on
 * time, the loop gets one more pass (setImmediate runs after pending I/O)
 * before the silence counts.
 */
export function heardWithinProbeTime(answer: Promise<unknown>, probeMs = PROBE_MS): Promise<boolean> {
  const heard = answer.then(
    () => true,
    (err: unknown) => !isClientTimeout(err),
  );
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let extended = 0;
    const arm = (ms: number) => {
      const due = Date.now() + ms;
      timer = setTimeout(() => {
        const late = Date.now() - due;
        if (late > LATE_MS && extended < probeMs) {
          const more = Math.min(late, probeMs - extended);
          extended += more;
          arm(more);
          return;
        }
        setImmediate(() => resolve(false));
      }, ms);
    };
    arm(probeMs);
    void heard.then((said) => {
      clearTimeout(timer);
      resolve(said);
    });
  });
}
