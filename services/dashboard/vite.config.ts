// The dashboard builds to dist/, which the api serves at /dashboard
// (services/api/src/routes/dashboard-ui.ts). Type-checking is tsc's job
// (`tsc -p services/dashboard`, run by setup before this build).
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

export default defineConfig({
  base: "/dashboard/",
  plugins: [react()],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
  },
  server: {
    // `pnpm --filter @ttr/dashboard dev` against an api on :8080.
    proxy: Object.fromEntries(
      ["/auth", "/triggers", "/executions", "/project", "/stats", "/overview", "/dead-letters", "/tag-policies"].map((p) => [p, "http://127.0.0.1:8080"]),
    ),
  },
});
