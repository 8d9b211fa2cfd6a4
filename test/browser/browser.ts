// Debian's Chromium driven by playwright-core, for the dashboard's browser
// tests. `npm test` installs Chromium when it is missing (scripts/test.mjs);
// without it these tests fail with a message rather than being skipped.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Locator, type Page, type Request, type Route } from "playwright-core";
import { createUser } from "@ttr/db";
import { afterAll, beforeAll } from "vitest";
import { startApi, type TestApi } from "../support/api.js";
import { startSystem, type System } from "../support/system.js";
import { startTarget, type Target } from "../support/target.js";

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

// ---- what several browser tests do -----------------------------------------

/** Waits until the locator's text contains `text`, case and all (the page refreshes by itself). */
export async function waitText(locator: Locator, text: string | RegExp, timeout = 20_000): Promise<void> {
  const pattern = typeof text === "string" ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")) : text;
  await locator.filter({ hasText: pattern }).first().waitFor({ timeout });
}

/** Signs in on the sign-in form at `<base>/dashboard/` and waits for the overview of the project. */
export async function signInPage(page: Page, base: string, email: string, password: string, projectName = "e2e"): Promise<void> {
  await page.goto(`${base}/dashboard/`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: projectName }).waitFor();
}

/** An instant as the viewer (Europe/Berlin, see openBrowser) types it into a datetime-local input; to the minute unless `seconds`. */
export function berlinLocal(d: Date, seconds = false): string {
  return new Intl.DateTimeFormat("sv-SE", {
    timeZone: "Europe/Berlin",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: seconds ? "2-digit" : undefined,
  })
    .format(d)
    .replace(" ", "T");
}

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** The page's WCAG 2 A and AA violations as axe-core finds them, one line each (rule, count, first place). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    type Rule = { id: string; nodes: Array<{ target: unknown[] }> };
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: Rule[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } });
    return result.violations.map((v) => `${v.id} ×${v.nodes.length} at ${JSON.stringify(v.nodes[0]?.target)}`);
  });
}

export interface SentCall {
  method: string;
  path: string;
  /** the JSON body, or null for none */
  body: unknown;
}

/** Records the page's requests with these methods from now on, in order. */
export function recordCalls(page: Page, methods: string[]): SentCall[] {
  const sent: SentCall[] = [];
  page.on("request", (r) => {
    if (methods.includes(r.method())) sent.push({ method: r.method(), path: new URL(r.url()).pathname, body: r.postData() ? JSON.parse(r.postData()!) : null });
  });
  return sent;
}

/**
 * Chromium signed in to `api`'s dashboard as a new user `<name>@example.com`
 * of its project: for tests that write rows straight to the tables and
 * need the api alone.
 */
export async function signedInBrowser(api: { db: Parameters<typeof createUser>[0]; projectId: string; base: string }, name: string): Promise<Browser> {
  const email = `${name}@example.com`;
  const password = `${name} password 1`;
  await createUser(api.db, api.projectId, email, password);
  const browser = await openBrowser();
  try {
    await signInPage(browser.page, api.base, email, password, "test");
    return browser;
  } catch (err) {
    await browser.close();
    throw err;
  }
}

/**
 * For a file's tests: the api in-process and a browser signed in to its
 * dashboard as `<name>@example.com`, started before them and closed after;
 * `started` hands both over.
 */
export function useSignedInApi(name: string, started: (api: TestApi, browser: Browser) => void): void {
  let api: TestApi | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    api = await startApi();
    browser = await signedInBrowser(api, name);
    started(api, browser);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });
}

/**
 * Holds the page's next timed refresh (a GET marked X-TTR-Background) whose
 * URL `matches`, until `release`: unsent, or with `answered`, answered by
 * the server and kept from the page. `sent` settles once it is held (with
 * `answered`, once the server's answer is in), `back` once its answer has
 * reached the page; `stop` lets later refreshes through untouched.
 */
export async function holdRefresh(page: Page, matches: (url: URL) => boolean, opts: { answered?: boolean } = {}) {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let markSent = () => {};
  const sent = new Promise<void>((resolve) => {
    markSent = resolve;
  });
  const timed = (r: Request) => r.method() === "GET" && r.headers()["x-ttr-background"] === "1";
  let done = false;
  const handler = async (route: Route) => {
    if (done || !timed(route.request())) return route.continue();
    done = true;
    const answer = opts.answered ? await route.fetch() : undefined;
    markSent();
    await held;
    return answer ? route.fulfill({ response: answer }) : route.continue();
  };
  await page.route(matches, handler);
  const back = page.waitForResponse((r) => matches(new URL(r.url())) && timed(r.request()), { timeout: 30_000 });
  back.catch(() => {}); // awaited by the tests that need it
  return { sent, back, release: () => release(), stop: () => page.unroute(matches, handler) };
}

export interface SignedInDashboard {
  sys: System;
  target: Target;
  browser: Browser;
  page: Page;
  /** the page's calls with the methods asked for, in order */
  sent: SentCall[];
  close(): Promise<void>;
}

/**
 * What a dashboard test drives: a real target (given its answers by
 * `prepare` first), the whole system, Chromium, and a new user of the
 * system's project signed in, with the page's calls of `methods` recorded
 * from the sign-in on. `close` stops all of it.
 */
export async function signedInDashboard(name: string, methods: string[], prepare?: (target: Target) => void): Promise<SignedInDashboard> {
  const email = `${name}-${randomBytes(3).toString("hex")}@example.com`;
  const password = "a long enough password";
  const target = await startTarget();
  prepare?.(target);
  let sys: System | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await sys?.stop();
    await target.close();
  };
  try {
    sys = await startSystem();
    await createUser(sys.db, sys.projectId, email, password);
    browser = await openBrowser();
    const sent = recordCalls(browser.page, methods);
    await signInPage(browser.page, sys.base, email, password);
    return { sys, target, browser, page: browser.page, sent, close };
  } catch (err) {
    await close();
    throw err;
  }
}
