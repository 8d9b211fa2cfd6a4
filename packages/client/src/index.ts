// @ttr/client: a typed client for ttr's HTTP API on fetch, with no runtime
// dependencies (README.md). Its types are generated from the api's OpenAPI
// document (scripts/generate.mjs).
export { type CancelTarget, type ClientOptions, createClient, TtrClient } from "./client.js";
export { isTtrError, STATUS_TAGS, TtrError, type TtrErrorTag } from "./errors.js";
export type { components, operations, paths } from "./generated/openapi.js";
export type { Fetch } from "./http.js";
export { type ScheduleOptions, scheduledAtHeader } from "./schedule.js";
export type * from "./types.js";
export { type VerifiedWebhook, type VerifyWebhookOptions, type WebhookHeaders, WebhookVerificationError, type WebhookVerificationReason, verifyWebhook } from "./verify-webhook.js";
