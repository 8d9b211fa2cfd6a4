// verifyWebhook against signatures made by an implementation of the
// Standard Webhooks scheme that is not ttr's (the standardwebhooks package).
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from "../src/verify-webhook.js";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const OTHER = "whsec_dGhlLW90aGVyLXNlY3JldC1vZi10aGUtcHJvamVjdA==";
const BODY = '{"hello":"wörld"}';
const NOW = 1_764_000_000_000;
const STAMP = Math.floor(NOW / 1000);

function signedHeaders(secret: string, body = BODY, at = STAMP, id = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"): Record<string, string> {
  return { "webhook-id": id, "webhook-timestamp": String(at), "webhook-signature": new Webhook(secret).sign(id, new Date(at * 1000), body) };
}

async function reason(p: Promise<unknown>): Promise<WebhookVerificationReason> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WebhookVerificationError);
  expect((err as WebhookVerificationError)._tag).toBe("WebhookVerificationError");
  return (err as WebhookVerificationError).reason;
}

describe("verifyWebhook", () => {
  it("accepts a delivery signed with the secret: text, bytes, Fetch Headers, any header case", async () => {
    const headers = signedHeaders(SECRET);
    const expected = { id: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", timestamp: STAMP };
    expect(await verifyWebhook({ secret: SECRET, headers, body: BODY, now: NOW })).toEqual(expected);
    expect(await verifyWebhook({ secret: SECRET, headers: new Headers(headers), body: new TextEncoder().encode(BODY), now: NOW })).toEqual(expected);
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect(await verifyWebhook({ secret: SECRET, headers: upper, body: new TextEncoder().encode(BODY).buffer, now: NOW })).toEqual(expected);
  });

  it("during a rotation, either secret matches one of two entries", async () => {
    const headers = signedHeaders(SECRET);
    headers["webhook-signature"] = `${signedHeaders(OTHER)["webhook-signature"]} ${headers["webhook-signature"]}`;
    expect((await verifyWebhook({ secret: SECRET, headers, body: BODY, now: NOW })).timestamp).toBe(STAMP);
    expect((await verifyWebhook({ secret: OTHER, headers, body: BODY, now: NOW })).timestamp).toBe(STAMP);
    expect((await verifyWebhook({ secret: ["whsec_bm9wZQ==", OTHER], headers, body: BODY, now: NOW })).timestamp).toBe(STAMP);
  });

  it("refuses another secret, a changed body, id or timestamp", async () => {
    const headers = signedHeaders(SECRET);
    expect(await reason(verifyWebhook({ secret: OTHER, headers, body: BODY, now: NOW }))).toBe("no_matching_signature");
    expect(await reason(verifyWebhook({ secret: SECRET, headers, body: '{"hello":"world"}', now: NOW }))).toBe("no_matching_signature");
    expect(await reason(verifyWebhook({ secret: SECRET, headers: { ...headers, "webhook-id": "other" }, body: BODY, now: NOW }))).toBe("no_matching_signature");
    expect(await reason(verifyWebhook({ secret: SECRET, headers: { ...headers, "webhook-timestamp": String(STAMP + 1) }, body: BODY, now: NOW }))).toBe("no_matching_signature");
    expect(await reason(verifyWebhook({ secret: SECRET, headers: { ...headers, "webhook-signature": "v1,!!!" }, body: BODY, now: NOW }))).toBe("no_matching_signature");
  });

  it("refuses old and future timestamps outside the tolerance", async () => {
    const old = signedHeaders(SECRET, BODY, STAMP - 301);
    expect(await reason(verifyWebhook({ secret: SECRET, headers: old, body: BODY, now: NOW }))).toBe("timestamp_too_old");
    expect((await verifyWebhook({ secret: SECRET, headers: old, body: BODY, now: NOW, toleranceSeconds: 600 })).timestamp).toBe(STAMP - 301);
    const future = signedHeaders(SECRET, BODY, STAMP + 301);
    expect(await reason(verifyWebhook({ secret: SECRET, headers: future, body: BODY, now: NOW }))).toBe("timestamp_too_new");
    expect(await reason(verifyWebhook({ secret: SECRET, headers: { ...old, "webhook-timestamp": "soon" }, body: BODY, now: NOW }))).toBe("invalid_timestamp");
  });

  it("refuses missing headers and a malformed secret", async () => {
    const headers = signedHeaders(SECRET);
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      const { [name]: _, ...rest } = headers;
      expect(await reason(verifyWebhook({ secret: SECRET, headers: rest, body: BODY, now: NOW }))).toBe("missing_headers");
    }
    expect(await reason(verifyWebhook({ secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", headers, body: BODY, now: NOW }))).toBe("invalid_secret");
  });
});
