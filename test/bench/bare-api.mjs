// The comparison for the api scenario: a bare express 5 handler that does
// one INSERT per request into PostgreSQL and answers JSON. No auth, no
// quota, no validation: the floor of what any /schedule can cost here.
import { randomUUID } from "node:crypto";
import express from "express";
import pg from "pg";

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 20) });
await pool.query(`CREATE TABLE IF NOT EXISTS bare_requests (
  id uuid PRIMARY KEY, url text NOT NULL, scheduled_at timestamptz NOT NULL, headers jsonb NOT NULL, body bytea, created_at timestamptz NOT NULL DEFAULT now())`);

const app = express();
app.disable("x-powered-by");
app.set("etag", false);
app.get("/ready", (_req, res) => {
  res.send("ok");
});
app.post("/schedule", express.raw({ type: "*/*", limit: "1mb" }), async (req, res) => {
  const id = randomUUID();
  const scheduledAt = new Date(req.get("ttr-scheduled-at") ?? Date.now());
  await pool.query("INSERT INTO bare_requests (id, url, scheduled_at, headers, body) VALUES ($1, $2, $3, $4, $5)", [
    id,
    req.get("ttr-url"),
    scheduledAt,
    JSON.stringify(Object.entries(req.headers).filter(([k]) => !k.startsWith("ttr-"))),
    Buffer.isBuffer(req.body) && req.body.length ? req.body : null,
  ]);
  res.json({ triggerId: id, scheduledAt: scheduledAt.toISOString() });
});
const server = app.listen(Number(process.env.PORT), "127.0.0.1");
server.keepAliveTimeout = 65_000;

process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
