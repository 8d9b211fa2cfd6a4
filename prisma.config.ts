// Prisma 7 CLI configuration (read by `prisma generate`, `prisma migrate …`).
//
// A plain object on purpose: `prisma` is a dependency of packages/db only, so
// `import { defineConfig } from "prisma/config"` would not resolve from the
// repository root. The CLI validates this object exactly as defineConfig would
// (unknown keys are rejected).
//
// Prisma 7.10's config accepts only: schema, migrations {path, seed,
// initShadowDb}, datasource {url, shadowDatabaseUrl}, tables/enums/views,
// typedSql, experimental {externalTables, extensions}. There is no driver
// adapter or engine option (Prisma 6's `migrate.adapter` is gone), so
// `prisma migrate deploy` always needs the native schema engine. Where that
// engine cannot be downloaded, migrations are applied by applyMigrations()
// in packages/db/src/migrate.ts, which records them exactly as Prisma does.

const DEFAULT_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/ttr";

export default {
  schema: "prisma/schema.prisma",
  migrations: {
    path: "prisma/migrations",
  },
  datasource: {
    // `generate` never connects; the default only keeps the CLI from failing
    // when DATABASE_URL is unset.
    url: process.env.DATABASE_URL || DEFAULT_DATABASE_URL,
  },
};
