// Dead letters in bulk: replay or discard many at once, by tag and a range
// of completion times, with a dry run that counts them first.
import { errorAnswer, type Json, jsonAnswer, ref, response, SECURITY, storeAnswers } from "./common.js";

export const DEAD_LETTER_SCHEMAS: Json = {
  DeadLetterSelection: {
    type: "object",
    description:
      "Which dead letters: those whose trigger carries `tag`, completed at or after `from` and before `to` (ISO 8601, to the second). Each may be left out; `{}` selects every dead letter not discarded. Unknown fields are ignored.",
    properties: {
      tag: { type: "string", description: "Only dead letters of triggers carrying this tag." },
      from: { type: "string", description: "Completed at or after this time (ISO 8601 date-time or date)." },
      to: { type: "string", description: "Completed before this time (ISO 8601 date-time or date); after `from`." },
      dryRun: { type: "boolean", default: false, description: "Only count what would be acted on; change nothing." },
    },
  },
  DeadLetterBulkResult: {
    type: "object",
    required: ["count", "dryRun"],
    additionalProperties: false,
    properties: {
      count: {
        type: "integer",
        minimum: 0,
        maximum: 10000,
        description: "How many were (on a dry run: would be) acted on, oldest completion first; at most 10,000 per call, so 10,000 means call again for the rest.",
      },
      dryRun: { type: "boolean" },
    },
  },
};

const bad = errorAnswer(
  "Not valid JSON or not of the body's shape (a field of the wrong type): no body, no Content-Type. Then, with a message: `Invalid tag: empty (leave it out for every tag)`, `Invalid from: <value> (an ISO 8601 date-time)`, `Invalid to: <value> (an ISO 8601 date-time)`, `from must be before to`.",
  "BadRequestError",
  true,
);
const unauthorized = errorAnswer("No live session and no valid API key: `Unauthorized`, or `Invalid api key` for an unknown key.", "UnauthorizedError");

function bulk(action: "replay" | "discard"): Json {
  const replay = action === "replay";
  return {
    post: {
      operationId: replay ? "replayDeadLetters" : "discardDeadLetters",
      tags: ["Dashboard data"],
      summary: replay ? "Replay dead letters in bulk" : "Discard dead letters in bulk",
      description: replay
        ? "Replay now for every selected dead letter that is still the latest attempt of a completed trigger: each trigger is queued with a new `replay` attempt, sent within its tags' policies. With `dryRun` only counts them."
        : "Takes the selected dead letters off the dead-letter list: each keeps `isDeadLetter` and gets `discardedAt`; triggers are not changed and discarded dead letters are not replayed in bulk. With `dryRun` only counts them.",
      security: SECURITY.apiKeyOrSession,
      requestBody: { required: true, content: { "application/json": { schema: ref("DeadLetterSelection") } } },
      responses: {
        "200": jsonAnswer(replay ? "How many triggers were queued again." : "How many dead letters were discarded.", ref("DeadLetterBulkResult")),
        "400": bad,
        "401": unauthorized,
        "403": response("Forbidden"),
        "413": response("PayloadTooLarge"),
        "415": response("UnsupportedMediaType"),
        ...storeAnswers(),
      },
    },
  };
}

export const DEAD_LETTER_PATHS: Json = {
  "/dead-letters/replay": bulk("replay"),
  "/dead-letters/discard": bulk("discard"),
};
