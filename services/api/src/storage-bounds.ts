// How long the api waits on PostgreSQL for the statements of /schedule,
// /cancel, API keys, quota and /readyz (its `pg` pool, main.ts). They take
// milliseconds; one that has no answer after STORAGE_ANSWER_MS, or a
// connection not had in that time, means PostgreSQL is frozen or cut off,
// and the request answers 503 in time (RELIABILITY.md) instead of waiting.
export const STORAGE_ANSWER_MS = 3000;

/**
 * The same pool's statement_timeout, enforced by the server: a statement the
 * api stopped waiting for (its connection dropped) would otherwise go on in
 * the server, behind a lock for as long as the lock is held, and could
 * commit long after its call answered 503. The server ends it this long
 * after it began; a frozen server, as soon as it resumes. It is longer than
 * STORAGE_ANSWER_MS, so the api's own limit comes first while the server
 * answers.
 */
export const STATEMENT_LIMIT_MS = STORAGE_ANSWER_MS + 1000;
