-- Opt-in delivery extras (docs/delivery-extras.md): three tag policy fields,
-- all off by default so existing policies behave as before, and one sealed
-- signing secret per project (AES-256-GCM under TTR_SECRET_KEY; the column
-- never holds a secret in clear). Adding columns with constant defaults
-- rewrites nothing: no downtime.

-- AlterTable
ALTER TABLE "tag_policies" ADD COLUMN     "honor_retry_after" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "notify_url" TEXT,
ADD COLUMN     "signing" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "signing_secrets" (
    "project_id" UUID NOT NULL,
    "secret" TEXT NOT NULL,
    "previous_secret" TEXT,
    "previous_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "rotated_at" TIMESTAMPTZ(3),

    CONSTRAINT "signing_secrets_pkey" PRIMARY KEY ("project_id")
);

-- AddForeignKey
ALTER TABLE "signing_secrets" ADD CONSTRAINT "signing_secrets_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
