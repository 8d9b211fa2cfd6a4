// Debian's Chromium driven by playwright-core, for the dashboard's browser
// tests. `npm test` installs Chromium when it is missing (scripts/test.mjs);
// without it these tests fail with a message rather than being skipped.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SCREENSHOTS = path.join(root, "test-results", "screenshots");

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** console errors, failed page scripts and CSP violations seen so far */
  problems: string[];
  screenshot(name: string, page?: Page): Promise<string>;
  close(): Promise<void>;
}

/** A fresh browser profile (its own --user-data-dir) with one page open. */
export async function openBrowser(viewport = { width: 1280, height: 860 }): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}: the browser tests need it. Run \`npm test\` as root (it installs chromium) or \`apt-get install -y chromium\`.`,
    );
  }
  const profile = mkdtempSync(path.join(os.tmpdir(), "ttr-chromium-"));
  // launchPersistentContext is how playwright takes a user data dir; it adds its own --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport,
    locale: "en-GB",
    timezoneId: "Europe/Berlin",
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  const watch = (p: Page) => {
    p.on("console", (m) => {
      // Chromium logs every 4xx answer as a failed resource; the app handles those (401 before sign-in, 400 validation).
      if (m.type() === "error" && !/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) problems.push(m.text());
    });
    p.on("pageerror", (e) => problems.push(String(e)));
  };
  watch(page);
  context.on("page", watch);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    context,
    page,
    problems,
    async screenshot(name, p = page) {
      const file = path.join(SCREENSHOTS, `${name}.png`);
      await p.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
