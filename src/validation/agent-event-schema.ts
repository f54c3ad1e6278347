/**
 * The JSON Schema (2020-12) of the agentstream event model v1. Hand-written beside the TypeScript
 * types in model/events.ts; tests keep the two in step (every golden and generated event must
 * validate, and a dropped required field must not). `npm run build` writes it to
 * schema/agentstream.schema.json for users outside TypeScript.
 */
import { EVENT_TYPES } from "../model/events.ts";

type Schema = Record<string, unknown>;

const str: Schema = { type: "string" };
const nonNegative: Schema = { type: "integer", minimum: 0 };
const number: Schema = { type: "number" };
const json: Schema = {};
const jsonObject: Schema = { type: "object" };
const tokenCount: Schema = { type: ["integer", "null"], minimum: 0 };

const envelope: Schema = {
  v: { const: 1, description: "Model version." },
  seq: { ...nonNegative, description: "Position in the output stream: 0, 1, 2, ... with no gaps." },
  type: { enum: [...EVENT_TYPES] },
  time: {
    type: "string",
    description: "When it happened (RFC 3339), if the input said so; under agentstream run, else when run received it.",
  },
  sessionId: { ...str, description: "The agent session the event belongs to." },
  source: {
    type: "object",
    required: ["dialect"],
    properties: { dialect: str, line: { type: "integer", minimum: 1 } },
    additionalProperties: false,
  },
  raw: { description: "The source record, verbatim." },
};

const messageMeta: Schema = { contentType: str, language: str, channel: str };
const role: Schema = { enum: ["assistant", "user", "system", "developer"] };
const kind: Schema = { enum: ["text", "reasoning", "redacted_reasoning"] };

/** Per event type: its required fields and its properties (beyond the envelope). */
const events: Record<string, { required: string[]; properties: Schema }> = {
  "session.started": {
    required: [],
    properties: {
      agent: str,
      agentVersion: str,
      model: str,
      cwd: str,
      tools: { type: "array", items: str },
      parentSessionId: str,
      parentToolCallId: str,
      permissionMode: str,
      details: jsonObject,
    },
  },
  "session.completed": {
    required: ["status"],
    properties: {
      status: { enum: ["success", "error", "interrupted"] },
      error: str,
      finalText: str,
      usage: { $ref: "#/$defs/tokenUsage" },
      costUsd: { type: "number", minimum: 0 },
      durationMs: { type: "number", minimum: 0 },
      turns: nonNegative,
      details: jsonObject,
    },
  },
  "turn.started": { required: ["turnId"], properties: { turnId: str } },
  "turn.completed": {
    required: ["turnId"],
    properties: {
      turnId: str,
      status: { enum: ["success", "error"] },
      error: str,
      usage: { $ref: "#/$defs/tokenUsage" },
      costUsd: { type: "number", minimum: 0 },
    },
  },
  "message.started": { required: ["messageId", "role", "kind"], properties: { messageId: str, role, kind, ...messageMeta } },
  // `role` and `kind` are not required so that v1 streams written before they existed stay valid; every producer writes them.
  "message.delta": {
    required: ["messageId", "text", "position"],
    properties: { messageId: str, role, kind, text: str, position: nonNegative },
  },
  "message.completed": {
    required: ["messageId", "role", "kind", "text"],
    properties: { messageId: str, role, kind, text: str, signature: str, ...messageMeta },
  },
  "tool.started": {
    required: ["toolCallId", "name"],
    properties: {
      toolCallId: str,
      name: str,
      kind: {
        enum: ["command", "file_read", "file_write", "file_edit", "search", "web_search", "web_fetch", "mcp", "subagent", "todo", "other"],
      },
      input: json,
      server: str,
      description: str,
    },
  },
  "tool.input.delta": { required: ["toolCallId", "text"], properties: { toolCallId: str, text: str } },
  "tool.progress": { required: ["toolCallId"], properties: { toolCallId: str, output: str, status: str, elapsedMs: number } },
  "tool.completed": {
    required: ["toolCallId", "isError"],
    properties: {
      toolCallId: str,
      name: str,
      output: str,
      result: json,
      exitCode: { type: "integer" },
      isError: { type: "boolean" },
      durationMs: { type: "number", minimum: 0 },
    },
  },
  "file.changed": {
    required: ["changes"],
    properties: {
      changes: {
        type: "array",
        items: {
          type: "object",
          required: ["path", "kind"],
          properties: { path: str, kind: { enum: ["add", "delete", "update", "rename"] }, diff: str, newPath: str },
          additionalProperties: false,
        },
      },
      toolCallId: str,
      status: { enum: ["success", "error"] },
    },
  },
  "plan.updated": {
    required: ["items"],
    properties: {
      items: {
        type: "array",
        items: {
          type: "object",
          required: ["text", "status"],
          properties: { text: str, status: { enum: ["pending", "in_progress", "completed"] } },
          additionalProperties: false,
        },
      },
      planId: str,
    },
  },
  usage: {
    required: ["usage", "scope"],
    properties: {
      usage: { $ref: "#/$defs/tokenUsage" },
      scope: { enum: ["delta", "cumulative"] },
      costUsd: { type: "number", minimum: 0 },
      model: str,
    },
  },
  metric: { required: ["name", "values"], properties: { name: str, text: str, values: jsonObject } },
  rate_limit: { required: ["status"], properties: { status: str, resetsAt: str, limit: str, details: jsonObject } },
  retry: {
    required: ["attempt"],
    properties: { attempt: nonNegative, maxAttempts: nonNegative, delayMs: { type: "number", minimum: 0 }, error: str },
  },
  heartbeat: { required: [], properties: { idleMs: { type: "number", minimum: 0 } } },
  error: {
    required: ["scope", "message"],
    properties: {
      scope: { enum: ["session", "turn", "tool", "api", "stream"] },
      message: str,
      code: str,
      fatal: { type: "boolean" },
      toolCallId: str,
      turnId: str,
    },
  },
  notice: {
    required: ["kind", "level", "text"],
    properties: { kind: str, level: { enum: ["info", "warning"] }, text: str, details: jsonObject },
  },
  text: { required: ["text", "position"], properties: { text: str, position: { enum: ["preamble", "interleaved"] } } },
  repair: {
    required: ["kind", "removedChars", "message"],
    properties: { kind: str, messageId: str, toolCallId: str, removedChars: nonNegative, message: str },
  },
  unknown: { required: ["raw"], properties: { reason: str, text: str } },
};

/** The JSON Schema of one agentstream event (validate each line of an agentstream NDJSON stream with it). */
export const agentstreamSchema: Schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://agentstream.dev/schema/v1/agentstream.schema.json",
  title: "agentstream event (model v1)",
  description: "One event of the agentstream model. Switch on `type`; docs/events.md describes each.",
  type: "object",
  required: ["v", "seq", "type"],
  properties: envelope,
  allOf: Object.keys(events).map((type) => ({
    if: { properties: { type: { const: type } }, required: ["type"] },
    then: { $ref: `#/$defs/${type}` },
  })),
  unevaluatedProperties: false,
  $defs: {
    tokenUsage: {
      type: "object",
      required: ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens"],
      properties: {
        inputTokens: tokenCount,
        outputTokens: tokenCount,
        cacheReadTokens: tokenCount,
        cacheWriteTokens: tokenCount,
        reasoningTokens: tokenCount,
      },
      additionalProperties: false,
    },
    ...Object.fromEntries(
      Object.entries(events).map(([type, def]) => [type, { type: "object", required: def.required, properties: def.properties }]),
    ),
  },
};
