export { createDb, dbPing, type Db, type DbOptions } from "./client.js";
export { sql, query, queryOne, execute, type SqlRunner } from "./sql.js";
export * from "./rows.js";
export * from "./triggers.js";
export * from "./admin.js";
export { applyMigrations, createDatabaseIfMissing } from "./migrate.js";
export * from "./firing.js";
export * from "./dashboard.js";
