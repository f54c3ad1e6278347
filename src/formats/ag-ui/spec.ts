/**
 * Schema and sequence rules for `--format ag-ui`: AG-UI protocol events (protocol 1.0).
 *
 * Source of truth: @ag-ui/core 1.0.0 `EventSchemas` (zod; the schema below is written from it,
 * passthrough objects as there) and @ag-ui/client 1.0.0 `transformChunks` + `verifyEvents` (the
 * sequence rules), summarised in ../shared/docs/ag-ui-order-rules.md. Where the installed client is
 * stricter than that summary (reasoning spans and messages, subagents, ownership of ids by
 * subagent), the installed client wins; docs/formats/ag-ui.md lists each rule.
 */
import { RecentIds, VALIDATOR_RECENT_IDS } from "../../validation/recent-ids.ts";
import type { Issue } from "../../errors.ts";
import type { JsonObject, JsonValue } from "../../model/events.ts";
import type { ValidateFunction } from "../../validation/ajv.ts";
import type { FormatSpec, FormatValidator } from "../../validation/format-spec.ts";
import { schemaIssues } from "../../validation/validate-event.ts";

type Schema = Record<string, unknown>;

const str: Schema = { type: "string" };
const any: Schema = {};
const textRole: Schema = { enum: ["developer", "system", "assistant", "user"] };
const jsonPointer: Schema = { type: "string", pattern: "^(/([^/~]|~[01])*)*$" };
const patchOperation: Schema = {
  type: "object",
  required: ["op", "path"],
  properties: { op: { enum: ["add", "remove", "replace", "move", "copy", "test"] }, path: jsonPointer, from: jsonPointer, value: any },
  allOf: [
    { if: { properties: { op: { enum: ["add", "replace", "test"] } } }, then: { required: ["value"] } },
    { if: { properties: { op: { enum: ["move", "copy"] } } }, then: { required: ["from"] } },
  ],
};
const count: Schema = { type: "integer", minimum: 0 };
const tokenUsage: Schema = {
  type: "array",
  items: {
    type: "object",
    properties: {
      provider: str,
      model: str,
      inputTokens: count,
      outputTokens: count,
      totalTokens: count,
      reasoningTokens: count,
      cachedInputTokens: count,
      cacheWriteInputTokens: count,
    },
  },
};
const contentPart: Schema = {
  type: "object",
  required: ["type"],
  properties: { type: { enum: ["text", "image", "audio", "video", "document"] }, id: str, text: str, source: { type: "object" } },
  allOf: [{ if: { properties: { type: { const: "text" } } }, then: { required: ["text"] }, else: { required: ["source"] } }],
};
const messageRoles = ["developer", "system", "assistant", "user", "tool", "activity", "reasoning"];
const message: Schema = {
  type: "object",
  required: ["id", "role"],
  properties: { id: str, role: { enum: messageRoles }, subagentRunId: str, name: str, encryptedValue: str, metadata: { type: "object" } },
  allOf: [
    { if: { properties: { role: { enum: ["developer", "system", "user", "tool", "reasoning"] } } }, then: { required: ["content"] } },
    { if: { properties: { role: { const: "tool" } } }, then: { required: ["toolCallId"] } },
    { if: { properties: { role: { const: "activity" } } }, then: { required: ["activityType", "content"] } },
  ],
};
const interrupt: Schema = {
  type: "object",
  required: ["id", "reason"],
  properties: { id: str, reason: str, message: str, toolCallId: str, expiresAt: str, subagentRunId: str, metadata: { type: "object" } },
};

/** Per event type: required fields and their shapes (beyond the base fields). */
const eventShapes: Record<string, { required: string[]; properties: Schema }> = {
  TEXT_MESSAGE_START: { required: ["messageId"], properties: { messageId: str, role: textRole, name: str } },
  TEXT_MESSAGE_CONTENT: { required: ["messageId", "delta"], properties: { messageId: str, delta: str } },
  TEXT_MESSAGE_END: { required: ["messageId"], properties: { messageId: str } },
  TEXT_MESSAGE_CHUNK: { required: [], properties: { messageId: str, role: textRole, delta: str, name: str } },
  TOOL_CALL_START: { required: ["toolCallId", "toolCallName"], properties: { toolCallId: str, toolCallName: str, parentMessageId: str } },
  TOOL_CALL_ARGS: { required: ["toolCallId", "delta"], properties: { toolCallId: str, delta: str } },
  TOOL_CALL_END: { required: ["toolCallId"], properties: { toolCallId: str } },
  TOOL_CALL_CHUNK: { required: [], properties: { toolCallId: str, toolCallName: str, parentMessageId: str, delta: str } },
  TOOL_CALL_RESULT: {
    required: ["messageId", "toolCallId", "content"],
    properties: {
      messageId: str,
      toolCallId: str,
      content: { anyOf: [str, { type: "array", items: contentPart }] },
      role: { const: "tool" },
    },
  },
  STATE_SNAPSHOT: { required: ["snapshot"], properties: { snapshot: any } },
  STATE_DELTA: { required: ["delta"], properties: { delta: { type: "array", items: patchOperation } } },
  MESSAGES_SNAPSHOT: { required: ["messages"], properties: { messages: { type: "array", items: message } } },
  ACTIVITY_SNAPSHOT: {
    required: ["messageId", "activityType", "content"],
    properties: { messageId: str, activityType: str, content: { type: "object" }, replace: { type: "boolean" } },
  },
  ACTIVITY_DELTA: {
    required: ["messageId", "activityType", "patch"],
    properties: { messageId: str, activityType: str, patch: { type: "array", items: patchOperation } },
  },
  RAW: { required: ["event"], properties: { event: any, source: str } },
  CUSTOM: { required: ["name", "value"], properties: { name: str, value: any } },
  RUN_STARTED: {
    required: ["threadId", "runId"],
    properties: { threadId: str, runId: str, protocolVersion: str, parentRunId: str, input: { type: "object" } },
  },
  RUN_FINISHED: {
    required: ["threadId", "runId"],
    properties: {
      threadId: str,
      runId: str,
      result: any,
      outcome: {
        oneOf: [
          {
            type: "object",
            required: ["type"],
            properties: { type: { const: "success" }, pendingToolCallIds: { type: "array", items: str } },
          },
          {
            type: "object",
            required: ["type", "interrupts"],
            properties: { type: { const: "interrupt" }, interrupts: { type: "array", minItems: 1, items: interrupt } },
          },
          { type: "object", required: ["type"], properties: { type: { const: "cancelled" } } },
        ],
      },
      usage: tokenUsage,
    },
  },
  RUN_ERROR: { required: ["message"], properties: { message: str, code: str, usage: tokenUsage } },
  STEP_STARTED: { required: ["stepName"], properties: { stepName: str } },
  STEP_FINISHED: { required: ["stepName"], properties: { stepName: str } },
  REASONING_START: { required: ["messageId"], properties: { messageId: str } },
  REASONING_MESSAGE_START: { required: ["messageId", "role"], properties: { messageId: str, role: { const: "reasoning" } } },
  REASONING_MESSAGE_CONTENT: { required: ["messageId", "delta"], properties: { messageId: str, delta: str } },
  REASONING_MESSAGE_END: { required: ["messageId"], properties: { messageId: str } },
  REASONING_MESSAGE_CHUNK: { required: [], properties: { messageId: str, delta: str } },
  REASONING_END: { required: ["messageId"], properties: { messageId: str } },
  REASONING_ENCRYPTED_VALUE: {
    required: ["subtype", "entityId", "encryptedValue"],
    properties: { subtype: { enum: ["tool-call", "message"] }, entityId: str, encryptedValue: str },
  },
  SUBAGENT_STARTED: {
    required: ["subagentRunId", "name"],
    properties: { name: str, description: str, parentSubagentRunId: str, parentToolCallId: str, parentMessageId: str },
  },
  SUBAGENT_FINISHED: {
    required: ["subagentRunId"],
    properties: {
      result: any,
      outcome: {
        oneOf: [
          { type: "object", required: ["type"], properties: { type: { const: "success" } } },
          { type: "object", required: ["type"], properties: { type: { const: "suspended" }, interruptIds: { type: "array", items: str } } },
        ],
      },
    },
  },
  SUBAGENT_ERROR: { required: ["subagentRunId", "message"], properties: { message: str, code: str } },
};

/** Every AG-UI event type protocol 1.0 defines. */
const AG_UI_EVENT_TYPES: readonly string[] = Object.keys(eventShapes);

/** JSON Schema 2020-12 of one AG-UI event: a discriminated union on `type`; extra fields allowed (zod passthrough). */
const agUiSchema: Schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://agentstream.dev/schema/v1/ag-ui.schema.json",
  title: "AG-UI protocol event (protocol 1.0, @ag-ui/core 1.0.0)",
  type: "object",
  required: ["type"],
  properties: {
    type: { enum: [...AG_UI_EVENT_TYPES] },
    timestamp: { type: "integer", description: "Milliseconds since the epoch." },
    rawEvent: { description: "The source event this one was made from." },
    metadata: { type: "object", description: "Extra information; the key ag-ui is reserved." },
    subagentRunId: {
      type: "string",
      description: "The subagent invocation the event belongs to; omitted (never null) for the parent agent.",
    },
  },
  allOf: Object.entries(eventShapes).map(([type, shape]) => ({
    if: { properties: { type: { const: type } }, required: ["type"] },
    then: { required: shape.required, properties: shape.properties },
  })),
};

/** A stream-order violation. */
function violation(message: string, line: number | undefined): Issue {
  const issue: Issue = { code: "out-of-order", severity: "error", message };
  return line === undefined ? issue : { ...issue, line };
}

/** Checks AG-UI event order as `transformChunks` then `verifyEvents` would. */
interface AgUiSequenceChecker {
  check(event: JsonObject, line?: number): Issue[];
  /** The stream ended: a run still active is one a client would wait on forever. */
  end(): Issue[];
}

type Owner = string | undefined;

/** Creates the sequence checker (one per stream). */
function createAgUiSequenceChecker(): AgUiSequenceChecker {
  const checker = new AgUiSequenceState();
  return {
    check(event, line) {
      const problems: string[] = [];
      for (const expanded of checker.expand(event, problems)) checker.verify(expanded, problems);
      return problems.map((p) => violation(p, line));
    },
    end() {
      // verifyEvents has no end-of-stream rule, but a client waits for RUN_FINISHED or RUN_ERROR: a cut stream
      // hangs it. A warning (the protocol's verifier would not throw), so validate exits 1.
      if (!checker.runActive || checker.finished || checker.errored) return [];
      const run = checker.runId === undefined ? "the run" : `run "${checker.runId}"`;
      const open = checker.openSummary();
      const message = `the stream ended inside ${run}${open === "" ? "" : ` with ${open} still active`}: no RUN_FINISHED or RUN_ERROR (a client waiting on it would hang)`;
      return [{ code: "out-of-order", severity: "warning", message }];
    },
  };
}

/** What the AG-UI sequence checker has seen of one stream (the run, open ids and their lanes), and the rules. */
class AgUiSequenceState {
  seenFirst = false;
  runActive = false;
  /** The `runId` of the last RUN_STARTED, for the message about a run that never ended. */
  runId: string | undefined;
  finished = false;
  errored = false;
  readonly openMessages = new Set<string>();
  readonly openTools = new Set<string>();
  readonly openSpans = new Set<string>();
  readonly openReasoning = new Set<string>();
  readonly steps = new Map<Owner, Set<string>>();
  readonly activeSubagents = new Set<string>();
  readonly finishedSubagents = new Set<string>();
  // Which subagent (undefined: the parent) opened each id in this run.
  // Who owns each id, the latest VALIDATOR_RECENT_IDS of each kind: the memory does not grow with the stream.
  readonly messageOwner = new RecentIds<Owner>(VALIDATOR_RECENT_IDS);
  readonly toolOwner = new RecentIds<Owner>(VALIDATOR_RECENT_IDS);
  readonly reasoningOwner = new RecentIds<Owner>(VALIDATOR_RECENT_IDS);
  // transformChunks: one chunk-built message or call open per lane (lane = subagentRunId).
  readonly chunkLanes = new Map<Owner, { kind: "text" | "tool" | "reasoning"; id: string }>();

  resetRun(): void {
    for (const set of [this.openMessages, this.openTools, this.openSpans, this.openReasoning, this.activeSubagents, this.finishedSubagents])
      set.clear();
    for (const map of [this.messageOwner, this.toolOwner, this.reasoningOwner]) map.clear();
    this.steps.clear();
    this.finished = false;
    this.errored = false;
  }

  ownerOf(event: JsonObject): Owner {
    return typeof event.subagentRunId === "string" ? event.subagentRunId : undefined;
  }

  who(owner: Owner): string {
    return owner === undefined ? "the parent agent" : `subagent "${owner}"`;
  }

  stepsOf(owner: Owner): Set<string> {
    let set = this.steps.get(owner);
    if (set === undefined) {
      set = new Set();
      this.steps.set(owner, set);
    }
    return set;
  }

  /** The rules of verifyEvents, for one (already chunk-expanded) event. */
  verify(event: JsonObject, problems: string[]): void {
    const type = String(event.type);
    if (this.errored && type !== "RUN_STARTED") {
      problems.push(`${type} after RUN_ERROR: only a new RUN_STARTED may follow a run error`);
      return;
    }
    if (this.finished && type !== "RUN_ERROR" && type !== "RUN_STARTED") {
      problems.push(`${type} after RUN_FINISHED: start a new run with RUN_STARTED first`);
      return;
    }
    if (!this.seenFirst) {
      this.seenFirst = true;
      if (type !== "RUN_STARTED" && type !== "RUN_ERROR") {
        problems.push(`the first event must be RUN_STARTED (or RUN_ERROR), not ${type}`);
        return;
      }
    } else if (type === "RUN_STARTED") {
      if (this.runActive && !this.finished && !this.errored) {
        problems.push("RUN_STARTED while a run is still active: finish it with RUN_FINISHED first");
        return;
      }
      if (this.finished || this.errored) this.resetRun();
    }
    const owner = this.ownerOf(event);
    const ownership = (map: RecentIds<Owner>, id: string, what: string): boolean => {
      if (!map.has(id) || map.get(id) === owner || owner === undefined) return true;
      problems.push(`${type} for ${what} "${id}" from ${this.who(owner)}, but ${this.who(map.get(id))} opened it`);
      return false;
    };
    if (!this.verifyContent(type, event, owner, ownership, problems)) this.verifyLifecycle(type, event, owner, problems);
  }

  /** Messages, tool calls, reasoning: each id opened once, used while open, by its own lane. False: not such an event. */
  verifyContent(type: string, event: JsonObject, owner: Owner, ownership: Ownership, problems: string[]): boolean {
    switch (type) {
      case "TEXT_MESSAGE_START":
        openId(
          this.openMessages,
          this.messageOwner,
          String(event.messageId),
          "text message",
          "TEXT_MESSAGE_END",
          ownership,
          owner,
          problems,
        );
        return true;
      case "TEXT_MESSAGE_CONTENT":
      case "TEXT_MESSAGE_END":
        useId(
          this.openMessages,
          this.messageOwner,
          String(event.messageId),
          type,
          "text message",
          "TEXT_MESSAGE_START",
          type === "TEXT_MESSAGE_END",
          ownership,
          problems,
        );
        return true;
      case "TOOL_CALL_START": {
        const parent = typeof event.parentMessageId === "string" ? event.parentMessageId : undefined;
        if (parent !== undefined && owner !== undefined && this.messageOwner.has(parent) && this.messageOwner.get(parent) !== owner) {
          problems.push(
            `TOOL_CALL_START "${String(event.toolCallId)}" from ${this.who(owner)} names parent message "${parent}" of ${this.who(this.messageOwner.get(parent))}`,
          );
          return true;
        }
        openId(
          this.openTools,
          this.toolOwner,
          String(event.toolCallId),
          "tool call",
          "TOOL_CALL_END",
          ownership,
          owner ?? (parent === undefined ? undefined : this.messageOwner.get(parent)),
          problems,
        );
        return true;
      }
      case "TOOL_CALL_ARGS":
      case "TOOL_CALL_END":
        useId(
          this.openTools,
          this.toolOwner,
          String(event.toolCallId),
          type,
          "tool call",
          "TOOL_CALL_START",
          type === "TOOL_CALL_END",
          ownership,
          problems,
        );
        return true;
      case "TOOL_CALL_RESULT":
        this.messageOwner.set(String(event.messageId), owner);
        return true;
      case "REASONING_START":
        openId(this.openSpans, this.reasoningOwner, String(event.messageId), "reasoning span", "REASONING_END", ownership, owner, problems);
        return true;
      case "REASONING_MESSAGE_START":
        openId(
          this.openReasoning,
          this.reasoningOwner,
          String(event.messageId),
          "reasoning message",
          "REASONING_MESSAGE_END",
          ownership,
          owner,
          problems,
        );
        return true;
      case "REASONING_MESSAGE_CONTENT":
      case "REASONING_MESSAGE_END":
        useId(
          this.openReasoning,
          this.reasoningOwner,
          String(event.messageId),
          type,
          "reasoning message",
          "REASONING_MESSAGE_START",
          type === "REASONING_MESSAGE_END",
          ownership,
          problems,
        );
        return true;
      case "REASONING_END":
        useId(
          this.openSpans,
          this.reasoningOwner,
          String(event.messageId),
          type,
          "reasoning span",
          "REASONING_START",
          true,
          ownership,
          problems,
        );
        return true;
      default:
        return false;
    }
  }

  /** Steps, subagents and the run itself. */
  verifyLifecycle(type: string, event: JsonObject, owner: Owner, problems: string[]): void {
    switch (type) {
      case "STEP_STARTED": {
        const name = String(event.stepName);
        if (this.stepsOf(owner).has(name))
          problems.push(`STEP_STARTED "${name}" while that step is already active${owner === undefined ? "" : ` in ${this.who(owner)}`}`);
        else this.stepsOf(owner).add(name);
        break;
      }
      case "STEP_FINISHED": {
        const name = String(event.stepName);
        if (this.stepsOf(owner).delete(name)) break;
        const elsewhere = [...this.steps].find(([other, names]) => other !== owner && names.has(name));
        problems.push(
          elsewhere === undefined
            ? `STEP_FINISHED "${name}" for a step that was never started`
            : `STEP_FINISHED "${name}" from ${this.who(owner)}, but ${this.who(elsewhere[0])} started it`,
        );
        break;
      }
      case "SUBAGENT_STARTED": {
        const id = String(event.subagentRunId);
        const parent = typeof event.parentSubagentRunId === "string" ? event.parentSubagentRunId : undefined;
        if (this.activeSubagents.has(id)) problems.push(`SUBAGENT_STARTED "${id}" while that subagent is active`);
        else if (this.finishedSubagents.has(id))
          problems.push(`SUBAGENT_STARTED "${id}": that subagent already finished in this run (ids are per invocation)`);
        else if (parent !== undefined && !this.activeSubagents.has(parent) && !this.finishedSubagents.has(parent))
          problems.push(`SUBAGENT_STARTED "${id}": parent subagent "${parent}" was not started in this run`);
        else this.activeSubagents.add(id);
        break;
      }
      case "SUBAGENT_FINISHED":
      case "SUBAGENT_ERROR": {
        const id = String(event.subagentRunId);
        if (!this.activeSubagents.delete(id))
          problems.push(`${type} "${id}" for a subagent that is not active: send SUBAGENT_STARTED first`);
        else this.finishedSubagents.add(id);
        break;
      }
      case "RUN_STARTED":
        this.runActive = true;
        this.runId = typeof event.runId === "string" ? event.runId : undefined;
        break;
      case "RUN_FINISHED": {
        const open = this.openSummary();
        if (open !== "") problems.push(`RUN_FINISHED while ${open} still active`);
        else this.finished = true;
        break;
      }
      case "RUN_ERROR":
        this.errored = true;
        break;
      default:
        break;
    }
  }

  openSummary(): string {
    const parts: string[] = [];
    const list = (set: Iterable<string>): string => [...set].map((id) => `"${id}"`).join(", ");
    const openSteps = [...this.steps].flatMap(([owner, names]) =>
      [...names].map((n) => (owner === undefined ? n : `${n} (subagent ${owner})`)),
    );
    if (openSteps.length > 0) parts.push(`steps ${list(openSteps)}`);
    if (this.openMessages.size > 0) parts.push(`text messages ${list(this.openMessages)}`);
    if (this.openReasoning.size > 0) parts.push(`reasoning messages ${list(this.openReasoning)}`);
    if (this.openSpans.size > 0) parts.push(`reasoning spans ${list(this.openSpans)}`);
    if (this.openTools.size > 0) parts.push(`tool calls ${list(this.openTools)}`);
    if (this.activeSubagents.size > 0) parts.push(`subagents ${list(this.activeSubagents)}`);
    return parts.join(", ");
  }

  /** transformChunks: expands *_CHUNK events and closes chunk-built messages before other events. */
  expand(event: JsonObject, problems: string[]): JsonObject[] {
    const type = String(event.type);
    const lane = this.ownerOf(event);
    const withLane = (fields: JsonObject): JsonObject => (lane === undefined ? fields : { ...fields, subagentRunId: lane });
    const close = (which: Owner): JsonObject[] => {
      const open = this.chunkLanes.get(which);
      if (open === undefined) return [];
      this.chunkLanes.delete(which);
      const end =
        open.kind === "text"
          ? { type: "TEXT_MESSAGE_END", messageId: open.id }
          : open.kind === "tool"
            ? { type: "TOOL_CALL_END", toolCallId: open.id }
            : { type: "REASONING_MESSAGE_END", messageId: open.id };
      return [which === undefined ? end : { ...end, subagentRunId: which }];
    };
    const closeAll = (): JsonObject[] => [...this.chunkLanes.keys()].flatMap(close);
    const chunk = (kind: "text" | "tool" | "reasoning", idKey: "messageId" | "toolCallId"): JsonObject[] => {
      const id = typeof event[idKey] === "string" ? (event[idKey] as string) : undefined;
      const open = this.chunkLanes.get(lane);
      const out: JsonObject[] = [];
      if (open === undefined || open.kind !== kind || (id !== undefined && id !== open.id)) {
        out.push(...close(lane));
        if (id === undefined) {
          problems.push(`the first ${type} of a ${kind === "tool" ? "tool call" : "message"} must have a ${idKey}`);
          return out;
        }
        if (kind === "tool" && typeof event.toolCallName !== "string") {
          problems.push("the first TOOL_CALL_CHUNK of a tool call must have a toolCallName");
          return out;
        }
        this.chunkLanes.set(lane, { kind, id });
        if (kind === "text")
          out.push(withLane({ type: "TEXT_MESSAGE_START", messageId: id, role: (event.role as JsonValue) ?? "assistant" }));
        else if (kind === "tool")
          out.push(
            withLane({
              type: "TOOL_CALL_START",
              toolCallId: id,
              toolCallName: event.toolCallName as string,
              ...(typeof event.parentMessageId === "string" ? { parentMessageId: event.parentMessageId } : {}),
            }),
          );
        else out.push(withLane({ type: "REASONING_MESSAGE_START", messageId: id, role: "reasoning" }));
      }
      const current = this.chunkLanes.get(lane)?.id ?? "";
      if (event.delta !== undefined) {
        const contentType = kind === "text" ? "TEXT_MESSAGE_CONTENT" : kind === "tool" ? "TOOL_CALL_ARGS" : "REASONING_MESSAGE_CONTENT";
        out.push(withLane({ type: contentType, [idKey]: current, delta: event.delta }));
      }
      return out;
    };
    switch (type) {
      case "TEXT_MESSAGE_CHUNK":
        return chunk("text", "messageId");
      case "TOOL_CALL_CHUNK":
        return chunk("tool", "toolCallId");
      case "REASONING_MESSAGE_CHUNK":
        return chunk("reasoning", "messageId");
      case "RUN_STARTED":
      case "RUN_FINISHED":
      case "RUN_ERROR":
      case "MESSAGES_SNAPSHOT":
        return [...closeAll(), event];
      case "RAW":
      case "ACTIVITY_SNAPSHOT":
      case "ACTIVITY_DELTA":
      case "REASONING_ENCRYPTED_VALUE":
      case "SUBAGENT_STARTED":
        return [event];
      default:
        return [...close(lane), event];
    }
  }
}

type Ownership = (map: RecentIds<Owner>, id: string, what: string) => boolean;

/** A START: the id must not be open already, and must belong to the same subagent as before. */
function openId(
  open: Set<string>,
  owners: RecentIds<Owner>,
  id: string,
  what: string,
  endType: string,
  ownership: Ownership,
  owner: Owner,
  problems: string[],
): void {
  if (open.has(id)) {
    problems.push(`a ${what} "${id}" started while it is already in progress: close it with ${endType} first`);
    return;
  }
  if (!ownership(owners, id, what)) return;
  open.add(id);
  if (!owners.has(id)) owners.set(id, owner);
}

/** A CONTENT / ARGS / END: the id must be open (and owned by the same subagent). */
function useId(
  open: Set<string>,
  owners: RecentIds<Owner>,
  id: string,
  type: string,
  what: string,
  startType: string,
  closes: boolean,
  ownership: Ownership,
  problems: string[],
): void {
  if (!open.has(id)) {
    problems.push(`${type} for ${what} "${id}", which is not in progress: send ${startType} first`);
    return;
  }
  if (!ownership(owners, id, what)) return;
  if (closes) open.delete(id);
}

/** `ag-ui`: its JSON Schema 2020-12 and sequence rules. */
export const agUiSpec: FormatSpec = {
  name: "ag-ui",
  description: "AG-UI protocol events (protocol 1.0): zod EventSchemas shapes and verifyEvents order",
  schema: agUiSchema,
  createValidator(compile): FormatValidator {
    let compiled: ValidateFunction | undefined;
    const sequence = createAgUiSequenceChecker();
    return {
      check(record, line) {
        compiled ??= compile(agUiSchema);
        if (!compiled(record)) return schemaIssues(compiled.errors ?? [], line);
        return sequence.check(record, line);
      },
      end: () => sequence.end(),
    };
  },
};
