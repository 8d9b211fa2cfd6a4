-- Pausing a tag (docs/api/tag-policies.md, pausing a tag): one tag policy
-- field, off by default so existing policies behave as before. A column
-- with a constant default rewrites nothing: no downtime.

-- AlterTable
ALTER TABLE "tag_policies" ADD COLUMN     "paused" BOOLEAN NOT NULL DEFAULT false;
