-- An API key is kept only as its SHA-256 (docs/cli.md, SECURITY.md). The
-- first characters of each key were also kept in plain text, for listings
-- that never came to exist; nothing reads them.
--
-- Upgrading: dropping a column only changes the catalog, so it is instant at
-- any size. A `ttr` CLI of an earlier version cannot create keys once it has
-- run; the services do not write this table.

ALTER TABLE "api_keys" DROP COLUMN "prefix";
