// Bodies near and far from the /declare and /bulk shapes, for the property
// tests of the shape checks (body-shape.test.ts, body-scan.test.ts).
import fc from "fast-check";

/** A value of one of the JSON types, often the right one for a field. */
export const anyValue = fc.oneof(
  fc.string({ maxLength: 3 }),
  fc.constant(""),
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 2 }), { maxLength: 3 }),
  fc.array(fc.oneof(fc.string({ maxLength: 2 }), fc.constant(null), fc.integer()), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.string({ maxLength: 2 }), { maxKeys: 3 }),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.oneof(fc.string(), fc.constant(null), fc.integer()), { maxKeys: 3 }),
);
/** An object with some of `fields` (each any value), sometimes an extra one. */
const objectOf = (fields: string[], valueFor: (field: string) => fc.Arbitrary<unknown> = () => anyValue) =>
  fc.record(Object.fromEntries([...fields, "extra"].map((f) => [f, valueFor(f)])), { requiredKeys: [] });
const rawItem = fc.oneof(
  objectOf(["url", "scheduledAt", "customKey", "method", "headers", "body", "title", "tags"], (f) => (f === "url" ? fc.oneof(fc.string(), anyValue) : anyValue)),
  anyValue,
);
const items = fc.oneof(fc.array(rawItem, { maxLength: 4 }), anyValue);
const cancelEntry = fc.oneof(fc.string({ maxLength: 3 }), objectOf(["id", "customKey", "tag"]), anyValue);
export const declareLike = fc.oneof(objectOf(["tag", "items", "runMissed"], (f) => (f === "items" ? items : f === "runMissed" ? fc.oneof(fc.boolean(), anyValue) : fc.oneof(fc.string(), anyValue))), fc.jsonValue());
export const bulkLike = fc.oneof(
  objectOf(["upserts", "cancels", "runMissed"], (f) => (f === "upserts" ? items : f === "cancels" ? fc.oneof(fc.array(cancelEntry, { maxLength: 4 }), anyValue) : fc.oneof(fc.boolean(), anyValue))),
  fc.jsonValue(),
);
