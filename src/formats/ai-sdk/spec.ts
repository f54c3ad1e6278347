/**
 * Schema and sequence rules for `--format ai-sdk`: Vercel AI SDK UI message stream chunks.
 *
 * Source of truth: `uiMessageChunkSchema` (zod, loose objects) and `processUIMessageStream` of the
 * `ai` package 6.x, summarised in ../shared/docs/ai-sdk-ui-stream.md. The schema accepts the chunk
 * types ai 6 accepts; the 7.x-only types (`custom`, `reasoning-file`, `reset-step`,
 * `tool-approval-response`) are rejected, because v5 and v6 clients throw on them.
 * Sequence rules: the ones the reader enforces (errors) and the order a well-behaved writer keeps
 * (warnings); docs/formats/ai-sdk.md lists each.
 */
import { RecentIds, VALIDATOR_RECENT_IDS } from "../../validation/recent-ids.ts";
import type { Issue } from "../../errors.ts";
import type { JsonObject } from "../../model/events.ts";
import type { ValidateFunction } from "../../validation/ajv.ts";
import type { FormatSpec, FormatValidator } from "../../validation/format-spec.ts";
import { schemaIssues } from "../../validation/validate-event.ts";

type Schema = Record<string, unknown>;

const str: Schema = { type: "string" };
const bool: Schema = { type: "boolean" };
const any: Schema = {};
/** `providerMetadata`: provider name → object of JSON values. */
const providerMetadata: Schema = { type: "object", additionalProperties: { type: "object" } };
const toolMetadata: Schema = { type: "object" };
const toolFields: Schema = { providerExecuted: bool, providerMetadata, toolMetadata, dynamic: bool, title: str };

/** Per chunk type: required fields and their shapes. `input`, `output`, `data`, `messageMetadata` may be null but must be present. */
const chunkShapes: Record<string, { required: string[]; properties: Schema }> = {
  start: { required: [], properties: { messageId: str, messageMetadata: any } },
  "start-step": { required: [], properties: {} },
  "text-start": { required: ["id"], properties: { id: str, providerMetadata } },
  "text-delta": { required: ["id", "delta"], properties: { id: str, delta: str, providerMetadata } },
  "text-end": { required: ["id"], properties: { id: str, providerMetadata } },
  "reasoning-start": { required: ["id"], properties: { id: str, providerMetadata } },
  "reasoning-delta": { required: ["id", "delta"], properties: { id: str, delta: str, providerMetadata } },
  "reasoning-end": { required: ["id"], properties: { id: str, providerMetadata } },
  "tool-input-start": {
    required: ["toolCallId", "toolName"],
    properties: { toolCallId: str, toolName: str, inputEncoding: { enum: ["json", "text"] }, ...toolFields },
  },
  "tool-input-delta": { required: ["toolCallId", "inputTextDelta"], properties: { toolCallId: str, inputTextDelta: str } },
  "tool-input-available": {
    required: ["toolCallId", "toolName", "input"],
    properties: { toolCallId: str, toolName: str, input: any, ...toolFields },
  },
  "tool-input-error": {
    required: ["toolCallId", "toolName", "input", "errorText"],
    properties: { toolCallId: str, toolName: str, input: any, errorText: str, ...toolFields },
  },
  "tool-approval-request": { required: ["approvalId", "toolCallId"], properties: { approvalId: str, toolCallId: str, signature: str } },
  "tool-output-available": {
    required: ["toolCallId", "output"],
    properties: { toolCallId: str, output: any, preliminary: bool, ...toolFields },
  },
  "tool-output-error": { required: ["toolCallId", "errorText"], properties: { toolCallId: str, errorText: str, ...toolFields } },
  "tool-output-denied": { required: ["toolCallId"], properties: { toolCallId: str } },
  "source-url": { required: ["sourceId", "url"], properties: { sourceId: str, url: str, title: str, providerMetadata } },
  "source-document": {
    required: ["sourceId", "mediaType", "title"],
    properties: { sourceId: str, mediaType: str, title: str, filename: str, providerMetadata },
  },
  file: { required: ["url", "mediaType"], properties: { url: str, mediaType: str, providerMetadata } },
  "finish-step": { required: [], properties: {} },
  finish: {
    required: [],
    properties: { finishReason: { enum: ["stop", "length", "content-filter", "tool-calls", "error", "other"] }, messageMetadata: any },
  },
  abort: { required: [], properties: { reason: str } },
  "message-metadata": { required: ["messageMetadata"], properties: { messageMetadata: any } },
  error: { required: ["errorText"], properties: { errorText: str } },
};

/** Every chunk type (besides `data-*`) the ai 6 client accepts. */
const AI_SDK_CHUNK_TYPES: readonly string[] = Object.keys(chunkShapes);

/** JSON Schema 2020-12 of one UI message chunk (extra fields allowed, as zod looseObject). */
const aiSdkSchema: Schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://agentstream.dev/schema/v1/ai-sdk.schema.json",
  title: "Vercel AI SDK UI message stream chunk (ai 6.x uiMessageChunkSchema)",
  type: "object",
  required: ["type"],
  properties: {
    type: { anyOf: [{ enum: [...AI_SDK_CHUNK_TYPES] }, { type: "string", pattern: "^data-" }] },
  },
  allOf: [
    ...Object.entries(chunkShapes).map(([type, shape]) => ({
      if: { properties: { type: { const: type } }, required: ["type"] },
      then: { required: shape.required, properties: shape.properties },
    })),
    {
      if: { properties: { type: { type: "string", pattern: "^data-" } }, required: ["type"] },
      then: { required: ["data"], properties: { id: str, data: any, transient: bool } },
    },
  ],
};

/** Checks UI message chunk order as `processUIMessageStream` reads it. */
interface AiSdkSequenceChecker {
  check(chunk: JsonObject, line?: number): Issue[];
  end(): Issue[];
}

/** Creates the sequence checker (one per stream). */
function createAiSdkSequenceChecker(): AiSdkSequenceChecker {
  const openText = new Set<string>();
  const openReasoning = new Set<string>();
  const streamingInputs = new Set<string>();
  const toolParts = new RecentIds(VALIDATOR_RECENT_IDS); // the latest tool call ids: a bounded memory
  let stepOpen = false;
  let finished = false;
  // An `error` or `abort` chunk ends the request for the client as `finish` does (useChat: status error / aborted).
  let endedBy: "error" | "abort" | undefined;
  let chunks = 0;

  function leftOpen(where: string): string[] {
    const parts = [...[...openText].map((id) => `text part "${id}"`), ...[...openReasoning].map((id) => `reasoning part "${id}"`)];
    return parts.length === 0
      ? []
      : [`${parts.join(", ")} still open at ${where}: close ${parts.length === 1 ? "it" : "them"} with text-end / reasoning-end`];
  }

  function part(open: Set<string>, type: string, id: string, startType: string, closes: boolean): string[] {
    if (!open.has(id))
      return [
        `${type} for ${startType === "text-start" ? "text" : "reasoning"} part "${id}", which is not open: send ${startType} first (finish-step closes every part)`,
      ];
    if (closes) open.delete(id);
    return [];
  }

  /** Errors: what the reader throws on. Warnings: the order a well-behaved writer keeps. */
  function rules(chunk: JsonObject): { errors: string[]; warnings: string[] } {
    const type = String(chunk.type);
    const id = String(chunk.id ?? "");
    const toolCallId = String(chunk.toolCallId ?? "");
    const errors: string[] = [];
    const warnings: string[] = [];
    if (finished) warnings.push(`${type} after finish: finish ends the message`);
    chunks++;
    switch (type) {
      case "error":
      case "abort":
        endedBy ??= type;
        break;
      case "text-start":
        if (openText.has(id)) warnings.push(`text-start for text part "${id}", which is already open: the open part never ends`);
        openText.add(id);
        break;
      case "text-delta":
      case "text-end":
        errors.push(...part(openText, type, id, "text-start", type === "text-end"));
        break;
      case "reasoning-start":
        if (openReasoning.has(id))
          warnings.push(`reasoning-start for reasoning part "${id}", which is already open: the open part never ends`);
        openReasoning.add(id);
        break;
      case "reasoning-delta":
      case "reasoning-end":
        errors.push(...part(openReasoning, type, id, "reasoning-start", type === "reasoning-end"));
        break;
      case "tool-input-start":
        streamingInputs.add(toolCallId);
        toolParts.set(toolCallId, true);
        break;
      case "tool-input-delta":
        if (!streamingInputs.has(toolCallId))
          errors.push(`tool-input-delta for tool call "${toolCallId}" with no tool-input-start before it`);
        break;
      case "tool-input-available":
      case "tool-input-error":
        toolParts.set(toolCallId, true);
        break;
      case "tool-output-available":
      case "tool-output-error":
      case "tool-output-denied":
      case "tool-approval-request":
        if (!toolParts.has(toolCallId))
          errors.push(`${type} for tool call "${toolCallId}", which has no tool part: send tool-input-start or tool-input-available first`);
        break;
      case "start-step":
        if (stepOpen) warnings.push("start-step while a step is open: send finish-step first");
        stepOpen = true;
        break;
      case "finish-step":
        if (!stepOpen) warnings.push("finish-step with no step open: send start-step first");
        warnings.push(...leftOpen("finish-step"));
        openText.clear();
        openReasoning.clear();
        stepOpen = false;
        break;
      case "finish":
        warnings.push(...leftOpen("finish"));
        if (stepOpen) warnings.push("finish while a step is open: send finish-step first");
        finished = true;
        break;
      default:
        break;
    }
    return { errors, warnings };
  }

  return {
    check(chunk, line) {
      const { errors, warnings } = rules(chunk);
      const at = (message: string, severity: Issue["severity"]): Issue => {
        const issue: Issue = { code: "out-of-order", severity, message };
        return line === undefined ? issue : { ...issue, line };
      };
      return [...errors.map((m) => at(m, "error")), ...warnings.map((m) => at(m, "warning"))];
    },
    end() {
      if (finished || chunks === 0) return [];
      const open = leftOpen("the end of the stream");
      // A stream that said it failed or was aborted has ended for its client; one cut before `finish` leaves it waiting.
      const cut =
        endedBy === undefined ? ["the stream ended before its finish chunk: a client waiting on it would hang (send finish)"] : [];
      return [...open, ...cut].map((message): Issue => ({ code: "out-of-order", severity: "warning", message }));
    },
  };
}

/** `ai-sdk`: its JSON Schema 2020-12 and sequence rules. */
export const aiSdkSpec: FormatSpec = {
  name: "ai-sdk",
  description: "Vercel AI SDK UI message stream chunks (ai 6.x): uiMessageChunkSchema shapes and processUIMessageStream order",
  schema: aiSdkSchema,
  createValidator(compile): FormatValidator {
    let compiled: ValidateFunction | undefined;
    const sequence = createAiSdkSequenceChecker();
    return {
      check(record, line) {
        compiled ??= compile(aiSdkSchema);
        if (!compiled(record)) return schemaIssues(compiled.errors ?? [], line);
        return sequence.check(record, line);
      },
      end: () => sequence.end(),
    };
  },
};
