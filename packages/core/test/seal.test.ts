// Sealing of secrets at rest: AES-256-GCM under TTR_SECRET_KEY, with the
// previous key still opening what it sealed.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { newSecretKeyText, parseSecretKey, SealError, seal, sealedKeyId, secretKeys, unseal } from "../src/seal.js";

const A = newSecretKeyText();
const B = randomBytes(32).toString("hex");

describe("parseSecretKey", () => {
  it("reads 32 bytes as base64, URL-safe base64 or hex, and names the key by a hash", () => {
    const bytes = randomBytes(32);
    const fromB64 = parseSecretKey(bytes.toString("base64"));
    expect(fromB64.key.equals(bytes)).toBe(true);
    expect(parseSecretKey(bytes.toString("base64url")).id).toBe(fromB64.id);
    expect(parseSecretKey(bytes.toString("hex")).id).toBe(fromB64.id);
    expect(fromB64.id).toMatch(/^[0-9a-f]{16}$/);
    expect(parseSecretKey(newSecretKeyText()).id).not.toBe(fromB64.id);
  });

  it("refuses anything else", () => {
    for (const bad of ["", "short", randomBytes(16).toString("base64"), randomBytes(31).toString("hex"), randomBytes(33).toString("base64"), `${"g".repeat(64)}`]) {
      expect(() => parseSecretKey(bad), bad).toThrow(SealError);
    }
  });
});

describe("seal and unseal", () => {
  const keys = secretKeys(A);

  it("round-trips, with a fresh IV each time and nothing of the plaintext in the sealed text", () => {
    const secret = "whsec_c2VjcmV0LXZhbHVlLXRoYXQtbXVzdC1zdGF5LWhpZGRlbg==";
    const one = seal(keys, secret, "ctx");
    const two = seal(keys, secret, "ctx");
    expect(one).not.toBe(two);
    expect(one).not.toContain("whsec_");
    expect(one).not.toContain(secret.slice(6, 20));
    expect(sealedKeyId(one)).toBe(keys.current.id);
    expect(unseal(keys, one, "ctx")).toBe(secret);
    expect(unseal(keys, two, "ctx")).toBe(secret);
  });

  it("does not open under another context, another key, or after tampering", () => {
    const sealed = seal(keys, "whsec_abc", "signing-secret:p1");
    expect(() => unseal(keys, sealed, "signing-secret:p2")).toThrow(SealError);
    expect(() => unseal(secretKeys(B), sealed, "signing-secret:p1")).toThrow(/neither TTR_SECRET_KEY nor TTR_SECRET_KEY_PREVIOUS/);
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body[0] = body[0]! ^ 1;
    parts[3] = body.toString("base64url");
    expect(() => unseal(keys, parts.join("."), "signing-secret:p1")).toThrow(SealError);
    expect(() => unseal(keys, "whsec_abc", "signing-secret:p1")).toThrow(/not a sealed secret/);
  });

  it("during a key rotation opens what the previous key sealed and seals with the new one", () => {
    const old = seal(secretKeys(A), "whsec_old", "c");
    const rotated = secretKeys(B, A);
    expect(unseal(rotated, old, "c")).toBe("whsec_old");
    const again = seal(rotated, "whsec_old", "c");
    expect(sealedKeyId(again)).toBe(rotated.current.id);
    expect(sealedKeyId(again)).not.toBe(sealedKeyId(old));
    // once the previous key is gone, only the re-sealed value opens
    expect(unseal(secretKeys(B), again, "c")).toBe("whsec_old");
    expect(() => unseal(secretKeys(B), old, "c")).toThrow(SealError);
  });
});
