-- The outcome of a dead letter's notification to its tag policy's notifyUrl
-- (docs/delivery-extras.md), shown with the execution in the dashboard.
-- Nullable columns without a default: adding them to the partitioned table
-- and its partitions rewrites nothing.

-- AlterTable
ALTER TABLE "executions" ADD COLUMN     "notify_attempts" INTEGER,
ADD COLUMN     "notify_error" TEXT,
ADD COLUMN     "notify_status" TEXT;
