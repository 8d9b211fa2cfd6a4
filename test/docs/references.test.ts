// The repository explains itself from a clone: no tracked file sends its
// reader to documents that are not in it, and every relative link of the
// Markdown pages leads to a file (and heading) that exists.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Every file git tracks, relative to the root. */
function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
    .split("\0")
    .filter((f) => f !== "" && existsSync(path.join(root, f)) && statSync(path.join(root, f)).isFile());
}

/** Binary as git decides it: a zero byte among the first 8,000. */
function isBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8000).includes(0);
}

// Built from parts, so that this file does not match itself.
const OUTSIDE = [["..", "shared"].join("/"), ...["SPEC", "CONTRACT"].flatMap((name) => [`${name} §`, `${name}.md`])];


interface Link {
  file: string;
  line: number;
  target: string;
}

/** The text without fenced code blocks and inline code, line numbers kept. */
function proseOf(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split("\n").map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return "";
    }
    return fence === null ? line.replace(/(`+)[^`]*?\1/g, "") : "";
  });
}

/** Inline links and images `[text](target)` and reference definitions `[id]: target`. */
function linksOf(file: string, markdown: string): Link[] {
  const links: Link[] = [];
  proseOf(markdown).forEach((text, i) => {
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push({ file, line: i + 1, target: m[1]! });
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(text);
    if (def) links.push({ file, line: i + 1, target: def[1]! });
  });
  return links;
}

/** GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseWithCode(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const text = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1");
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Lines outside fenced code blocks, inline code kept (headings keep its text). */
function proseWithCode(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split("\n").map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      return "";
    }
    return fence === null ? line : "";
  });
}

/** What is wrong with a relative link, or null when it leads somewhere. */
function brokenLink(link: Link): string | null {
  const { target } = link;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) return null;
  const [pathPart = "", anchor] = target.split("#", 2);
  const from = path.join(root, link.file);
  const resolved = pathPart === "" ? from : path.resolve(path.dirname(from), decodeURIComponent(pathPart.split("?")[0]!));
  const relative = path.relative(root, resolved).split(path.sep).join("/");
  if (relative.startsWith("..")) return `${target} leaves the repository`;
  if (!existsSync(resolved)) return `${target}: no such file`;
  if (anchor !== undefined && anchor !== "" && resolved.endsWith(".md") && statSync(resolved).isFile()) {
    if (!anchorsOf(readFileSync(resolved, "utf8")).has(anchor)) return `${target}: no heading #${anchor} in ${relative}`;
  }
  return null;
}

describe("the repository explains itself", () => {
  const files = trackedFiles();

  it("finds the tracked files", () => {
    expect(files).toContain("README.md");
    expect(files).toContain("docs/README.md");
  });

  it("no tracked file refers to documents outside the repository", () => {
    const found: string[] = [];
    for (const file of files) {
      const bytes = readFileSync(path.join(root, file));
      if (isBinary(bytes)) continue;
      bytes
        .toString("utf8")
        .split("\n")
        .forEach((line, i) => {
          for (const needle of OUTSIDE) if (line.includes(needle)) found.push(`${file}:${i + 1}: ${needle}`);
        });
    }
    expect(found).toEqual([]);
  });

  it("no Markdown page links its reader to a web page: what a reader needs is explained here", () => {
    const web: string[] = [];
    for (const page of files.filter((f) => f.endsWith(".md"))) {
      for (const link of linksOf(page, readFileSync(path.join(root, page), "utf8"))) {
        if (/^(https?:)?\/\//i.test(link.target)) web.push(`${link.file}:${link.line}: ${link.target}`);
      }
    }
    expect(web).toEqual([]);
  });

  it("every relative link of the tracked Markdown pages (README.md, docs/ and the rest) leads to an existing file and heading", () => {
    const pages = files.filter((f) => f.endsWith(".md"));
    expect(pages.length).toBeGreaterThan(10);
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of linksOf(page, readFileSync(path.join(root, page), "utf8"))) {
        const problem = brokenLink(link);
        if (problem !== null) broken.push(`${link.file}:${link.line}: ${problem}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it("reads links and headings the way GitHub does", () => {
    const page = [
      "# Errors, in order",
      "## `POST /bulk`",
      "## Errors, in order",
      "```sh",
      "# not a heading [x](nowhere.md)",
      "```",
      "See [a](a.md#errors-in-order), ![b](img/b.png \"title\") and `[c](c.md)`.",
      "[d]: ../d.md",
    ].join("\n");
    expect([...anchorsOf(page)]).toEqual(["errors-in-order", "post-bulk", "errors-in-order-1"]);
    expect(linksOf("x.md", page).map((l) => l.target)).toEqual(["a.md#errors-in-order", "img/b.png", "../d.md"]);
    expect(brokenLink({ file: "docs/README.md", line: 1, target: "concepts.md#glossary" })).toBeNull();
    expect(brokenLink({ file: "docs/README.md", line: 1, target: "concepts.md#no-such-heading" })).toMatch(/no heading/);
    expect(brokenLink({ file: "docs/README.md", line: 1, target: "missing.md" })).toMatch(/no such file/);
    expect(brokenLink({ file: "docs/README.md", line: 1, target: "../../outside.md" })).toMatch(/leaves the repository/);
  });
});
