// Shared by the send tests: a real target on 127.0.0.1 for the file's
// tests, and helpers to send one attempt to it and read what arrived.
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { type AttemptResult, destroyAgents, type OutgoingRequest, type SendOptions, sendAttempt } from "../src/send.js";
import { type Received, startTarget, type Target } from "./target-server.js";

export let target: Target;

/** Starts the target before the file's tests and clears what it received before each. */
export function useTarget(): void {
  beforeAll(async () => {
    target = await startTarget();
  });
  afterAll(async () => {
    destroyAgents();
    await target.close();
  });
  beforeEach(() => {
    target.received.length = 0;
  });
}

export const OPTS: SendOptions = { timeoutSeconds: 5, blockPrivateNetworks: false };

export function request(over: Partial<OutgoingRequest> = {}): OutgoingRequest {
  return { method: "GET", url: `${target.base}/echo`, headers: [], body: null, source: "schedule", ...over };
}

export function send(over: Partial<OutgoingRequest> = {}, opts: Partial<SendOptions> = {}): Promise<AttemptResult> {
  return sendAttempt(request(over), { ...OPTS, ...opts });
}

export function only(): Received {
  expect(target.received).toHaveLength(1);
  return target.received[0]!;
}

export function header(r: Received, name: string): string | undefined {
  return r.headers.find(([n]) => n.toLowerCase() === name)?.[1];
}

export function response(r: AttemptResult) {
  if (r.kind !== "response") throw new Error(`expected a response, got ${JSON.stringify(r)}`);
  return r;
}

export const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;
export const B3 = /^([0-9a-f]{32})-([0-9a-f]{16})-1$/;
