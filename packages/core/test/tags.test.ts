import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "../src/errors.js";
import { checkScheduleTags, checkTitle, isPolicyTag, parseTagsHeader } from "../src/tags.js";

/** The BadRequest message `check` throws, or null when it passes. */
const failure = (check: () => void): string | null => {
  try {
    check();
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).tag).toBe("BadRequest");
    expect((err as ApiError).status).toBe(400);
    return (err as ApiError).message;
  }
};
const tagsFailure = (tags: string[]) => failure(() => checkScheduleTags(tags));

describe("parseTagsHeader", () => {
  it.each([
    [undefined, []],
    ["", []],
    [" , ,, ", []],
    ["a", ["a"]],
    ["a,b", ["a", "b"]],
    [" a , b ,", ["a", "b"]],
    ["a,,b", ["a", "b"]],
    ["b,a,b", ["b", "a", "b"]],
    ["Has Space, x", ["Has Space", "x"]],
    ["\ta\t,\tb", ["a", "b"]],
  ])("%j → %j", (raw, expected) => {
    expect(parseTagsHeader(raw)).toEqual(expected);
  });
});

describe("checkScheduleTags (docs/api/schedule.md order)", () => {
  const long = "a".repeat(51);

  it("accepts up to 10 valid tags", () => {
    expect(tagsFailure([])).toBeNull();
    expect(tagsFailure(["a", "z", "0", "9", "_", "-", "prod", "team-a_1", "x".repeat(50), "b"])).toBeNull();
  });

  it("rejects more than 10 tags before looking at any tag", () => {
    expect(tagsFailure(Array.from({ length: 11 }, (_, i) => `t${i}`))).toBe("Maximum 10 tags allowed");
    expect(tagsFailure([long, "BAD", ...Array.from({ length: 9 }, () => "ok")])).toBe("Maximum 10 tags allowed");
  });

  it("counts duplicates as separate tags", () => {
    expect(tagsFailure(Array.from({ length: 11 }, () => "same"))).toBe("Maximum 10 tags allowed");
  });

  it.each([
    [[long], `Tag too long (max 50 chars): ${long}`],
    [["ok", long], `Tag too long (max 50 chars): ${long}`],
    // Length is checked before characters, for the same tag.
    [["A".repeat(51)], `Tag too long (max 50 chars): ${"A".repeat(51)}`],
    [["Prod"], "Invalid tag (only a-z 0-9 _ - allowed): Prod"],
    [["has space"], "Invalid tag (only a-z 0-9 _ - allowed): has space"],
    [["a.b"], "Invalid tag (only a-z 0-9 _ - allowed): a.b"],
    [["é"], "Invalid tag (only a-z 0-9 _ - allowed): é"],
    [["tag🙂"], "Invalid tag (only a-z 0-9 _ - allowed): tag🙂"],
    [[""], "Invalid tag (only a-z 0-9 _ - allowed): "],
    // Tags in listed order: the first bad tag wins, whatever its fault.
    [["BAD", long], "Invalid tag (only a-z 0-9 _ - allowed): BAD"],
    [[long, "BAD"], `Tag too long (max 50 chars): ${long}`],
  ])("%j → %s", (tags, message) => {
    expect(tagsFailure(tags)).toBe(message);
  });

  it("counts code points: 50 emoji are not too long, 51 are", () => {
    expect(tagsFailure(["🙂".repeat(50)])).toBe(`Invalid tag (only a-z 0-9 _ - allowed): ${"🙂".repeat(50)}`);
    expect(tagsFailure(["🙂".repeat(51)])).toBe(`Tag too long (max 50 chars): ${"🙂".repeat(51)}`);
  });

  it("agrees with isPolicyTag on every single tag", () => {
    fc.assert(
      fc.property(fc.oneof(fc.stringMatching(/^[a-z0-9_-]{0,60}$/), fc.string({ unit: "binary", maxLength: 60 })), (tag) => {
        expect(tagsFailure([tag]) === null).toBe(isPolicyTag(tag));
      }),
    );
  });

  it("header → check never fails with anything but the three messages", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (raw) => {
        const message = tagsFailure(parseTagsHeader(raw));
        if (message !== null) {
          expect(message).toMatch(/^(Maximum 10 tags allowed$|Tag too long \(max 50 chars\): |Invalid tag \(only a-z 0-9 _ - allowed\): )/);
        }
      }),
    );
  });
});

describe("isPolicyTag", () => {
  it.each([
    ["a", true],
    ["x".repeat(50), true],
    ["team-a_1", true],
    ["", false],
    ["x".repeat(51), false],
    ["A", false],
    ["a b", false],
    ["a,b", false],
  ])("%j → %s", (tag, expected) => {
    expect(isPolicyTag(tag)).toBe(expected);
  });
});

describe("checkTitle (docs/api/schedule.md)", () => {
  it("accepts up to 200 characters, counting code points", () => {
    expect(failure(() => checkTitle(""))).toBeNull();
    expect(failure(() => checkTitle("t".repeat(200)))).toBeNull();
    // 200 emoji are 400 UTF-16 units but 200 characters.
    expect(failure(() => checkTitle("🙂".repeat(200)))).toBeNull();
  });

  it("rejects 201 characters", () => {
    expect(failure(() => checkTitle("t".repeat(201)))).toBe("Title too long (max 200 chars)");
    expect(failure(() => checkTitle("🙂".repeat(201)))).toBe("Title too long (max 200 chars)");
  });

  it("fails exactly when there are more than 200 code points", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", minLength: 190, maxLength: 210 }), (title) => {
        expect(failure(() => checkTitle(title)) !== null).toBe(Array.from(title).length > 200);
      }),
    );
  });
});
