// How long the api waits on PostgreSQL for the statements of /schedule,
// /cancel, API keys, sessions, quota, the dashboard's trigger edits and
// /readyz (its `pg` pool, main.ts). They take
// milliseconds; one that has no answer after STORAGE_ANSWER_MS, or a
// connection not had in that time, means PostgreSQL is frozen or cut off,
// and the request answers 503 in time (RELIABILITY.md) instead of waiting.
export const STORAGE_ANSWER_MS = 3000;

/**
 * The same pool's statement_timeout, enforced by the server: a statement the
 * api stopped waiting for (its connection dropped) would otherwise go on in
 * the server, behind a lock for as long as the lock is held, and could
 * commit long after its call answered 503. The server ends it this long
 * after it began to run it (a frozen server, once it resumes: at once if
 * the time ran out meanwhile). It is longer than STORAGE_ANSWER_MS, so the
 * api's own limit comes first while the server answers, and shorter than
 * the 4 s a call whose write was cut off goes on settling it
 * (schedule/inserts.ts), so the server has given up by its 503.
 */
export const STATEMENT_LIMIT_MS = STORAGE_ANSWER_MS + 500;
