// The --project flag's project, for the commands that read or act on one.
import type { Context } from "../command.js";

/**
 * Fails with `project not found` (exit 1) unless the project exists. Called
 * after every flag was checked, so that a malformed one is a usage error
 * (exit 2) whatever the database holds or says.
 */
export async function projectExists(ctx: Context, projectId: string): Promise<void> {
  const found = await ctx.db().project.findUnique({ where: { id: projectId }, select: { id: true } });
  if (found === null) throw new Error("project not found");
}
