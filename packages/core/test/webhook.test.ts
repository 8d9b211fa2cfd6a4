// Delivery signatures, checked against the standardwebhooks package (an
// implementation of the scheme that is not ttr's) and a known vector.
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { newSigningSecret, signatureEntry, webhookHeaders } from "../src/webhook.js";

const headerMap = (pairs: Array<[string, string]>) => Object.fromEntries(pairs);

describe("webhook signatures", () => {
  it("matches the scheme's published example", () => {
    // the example of the Standard Webhooks specification
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const body = new TextEncoder().encode('{"test": 2432232314}');
    expect(signatureEntry(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("new secrets are whsec_ and 32 random bytes", () => {
    const s = newSigningSecret();
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(s.slice(6), "base64")).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(s);
  });

  it("standardwebhooks verifies each secret's signature, also with two during a rotation", () => {
    const [current, previous] = [newSigningSecret(), newSigningSecret()];
    const body = Buffer.from(JSON.stringify({ hello: "wörld" }));
    const now = Math.floor(Date.now() / 1000);
    const headers = headerMap(webhookHeaders([current, previous], "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", now, body));
    expect(headers["webhook-id"]).toBe("0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b");
    expect(headers["webhook-timestamp"]).toBe(String(now));
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(new Webhook(current).verify(body, headers)).toEqual({ hello: "wörld" });
    expect(new Webhook(previous).verify(body, headers)).toEqual({ hello: "wörld" });
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(Buffer.from('{"hello":"x"}'), headers)).toThrow();
  });

  it("an empty body signs as no bytes", () => {
    const secret = newSigningSecret();
    expect(signatureEntry(secret, "id", 1, null)).toBe(signatureEntry(secret, "id", 1, new Uint8Array()));
  });
});
