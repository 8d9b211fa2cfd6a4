// The executor's signer: the project's secrets opened with TTR_SECRET_KEY,
// a first secret made when a signing policy needs one, and SigningFailed
// (the attempt is then not sent) when the secrets cannot be opened.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { newSecretKeyText, secretKeys } from "@ttr/core";
import { createDb, createPgRunner, createProject, type Db, type PgRunner, rotateSigningSecret } from "@ttr/db";
import { freshDatabase, type TestDatabase } from "../../../test/support/db.js";
import { refuseToStart, SigningFailed, signer } from "../src/signing.js";

let database: TestDatabase;
let db: Db;
let runner: PgRunner;
const KEY = secretKeys(newSecretKeyText());

beforeAll(async () => {
  database = await freshDatabase();
  db = createDb(database.url, { max: 2 });
  runner = createPgRunner(database.url, { max: 2 });
});
afterAll(async () => {
  await runner.end();
  await db.$disconnect();
  await database.drop();
});

const body = new TextEncoder().encode('{"a":1}');
const asHeaders = (pairs: Array<[string, string]>) => Object.fromEntries(pairs);

describe("signer", () => {
  it("without a key: starts while no project has a secret, fails to sign with SigningFailed", async () => {
    expect(await refuseToStart(runner, null)).toBeNull();
    const { projectId } = await createProject(db, "no-key", 10);
    await expect(signer(runner, null)(projectId, "e1", body)).rejects.toThrow(SigningFailed);
    await expect(signer(runner, null)(projectId, "e1", body)).rejects.toThrow(/TTR_SECRET_KEY is not set/);
  });

  it("makes the project's first secret, signs with it, and with both after a rotation", async () => {
    const { projectId } = await createProject(db, "signs", 10);
    const now = () => 1_764_000_000_000;
    const first = asHeaders(await signer(runner, KEY, now)(projectId, "exec-1", body));
    expect(first["webhook-id"]).toBe("exec-1");
    expect(first["webhook-timestamp"]).toBe("1764000000");
    const { secret } = await rotateSigningSecret(db, KEY, projectId);
    const second = asHeaders(await signer(runner, KEY)(projectId, "exec-2", body));
    const entries = second["webhook-signature"]!.split(" ");
    expect(entries).toHaveLength(2);
    expect(new Webhook(secret).verify(Buffer.from(body), second)).toEqual({ a: 1 });
    // once a secret exists, an executor without the key refuses to start
    expect(await refuseToStart(runner, null)).toMatch(/refusing to start/);
    expect(await refuseToStart(runner, KEY)).toBeNull();
  });

  it("with a key that does not open the project's secrets: SigningFailed, nothing signed", async () => {
    const { projectId } = await createProject(db, "other-key", 10);
    await signer(runner, KEY)(projectId, "x", body);
    const wrong = secretKeys(newSecretKeyText());
    await expect(signer(runner, wrong)(projectId, "y", body)).rejects.toThrow(SigningFailed);
  });
});
