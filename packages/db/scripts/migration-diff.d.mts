// Types of the parts of migration-diff.mjs that the tests import; the tool
// itself is plain JavaScript run with node.
export const HAND_MADE_INDEXES: Array<{ name: string; sql: string }>;
export function withDatabase(url: string, database: string): string;
// biome-ignore lint/suspicious/noExplicitAny: a loose view of the engine wrapper
export function openSchemaEngine(opts: { databaseUrl: string; scratchPrefix: string; schemaFiles?: unknown; log?: (m: string) => void }): Promise<any>;
// biome-ignore lint/suspicious/noExplicitAny: a loose view of the migrations list
export function readMigrationsList(migrationsDir: string): any;
