/**
 * Encoder for `--to ai-sdk`: the Vercel AI SDK UI message stream as chunk records. Framed as NDJSON,
 * or as SSE `data:` fields with `--sse`, which the format's SSE options open with a comment naming
 * the protocol and close with `data: [DONE]` (src/formats/ai-sdk/index.ts).
 *
 * Source of truth: `uiMessageChunkSchema` and `processUIMessageStream` of the `ai` package (6.x),
 * summarised in ../shared/docs/ai-sdk-ui-stream.md. docs/formats/ai-sdk.md has the mapping table
 * and what the stream cannot carry.
 *
 * A UI message stream builds ONE assistant message, so the whole input becomes one message: root
 * assistant text and reasoning become parts, root turns become steps, every tool call (subagents'
 * too) becomes a tool part, and everything else becomes a `data-*` part. Only fields every client
 * version accepts are written (the 5.0 set: no `finishReason`, `title`, `toolMetadata`), because
 * clients before 5.0.217 / 6.0.231 reject unknown keys.
 */
import type { AgentEvent, JsonObject, JsonValue } from "../../model/events.ts";
import { isUnshown } from "../../encoding/final-text.ts";
import { createDispatch, MAX_PREAMBLE, QUIET_EVENT_TYPES } from "../../encoding/dispatch.ts";
import { compact, payloadOf } from "../../encoding/payload.ts";
import type { RecordEncoder } from "../../encoding/record-encoder.ts";
import { stringifyRecord } from "../../framing/stringify.ts";
import type { Chunk } from "./wire.ts";

/** Data parts that are only signals: sent transient, so they reach `onData` but are not stored in the message. */
const TRANSIENT_TYPES = new Set<AgentEvent["type"]>(["heartbeat"]);
/** The tool part fields every tool chunk repeats: the agent ran the tool, and the client does not know the agent's tools. */
const TOOL_FLAGS = { dynamic: true, providerExecuted: true } as const;

/** An open text or reasoning part of the root assistant. */
interface OpenPart {
  /** The part id on the wire (a revision gets a fresh one). */
  readonly partId: string;
  readonly kind: "text" | "reasoning";
  /** Still open in the client: `finish-step` closes every part, and a later delta must re-open it. */
  open: boolean;
  streamed: string;
}

/** A message the stream cannot show as an assistant part (another role, a subagent's): sent whole as `data-message`. */
interface HeldMessage {
  text: string;
  readonly event: AgentEvent;
}

interface ToolState {
  readonly name: string;
  state: "input-streaming" | "input-available";
  inputText: string;
}

/** The streaming encoder for `--to ai-sdk`. */
export function createAiSdkEncoder(): RecordEncoder<Chunk> {
  let out: Chunk[] = [];
  let started = false;
  let preamble: AgentEvent[] | undefined = [];
  let rootSessionId: string | undefined;
  let rootSeen = false;
  let stepOpen = false;
  let lastStatus: Extract<AgentEvent, { type: "session.completed" }> | undefined;
  let revisions = 0;
  const parts = new Map<string, OpenPart>();
  const completedIds = new Set<string>();
  const held = new Map<string, HeldMessage>();
  const tools = new Map<string, ToolState>();
  const subagentSessions = new Set<string>();
  /** The root assistant's text parts as shown, to tell whether the final answer is already among them. */
  const shownTexts: string[] = [];

  function send(chunk: Chunk): void {
    out.push(chunk);
  }

  function ensureStart(session: Extract<AgentEvent, { type: "session.started" }> | undefined): void {
    if (started) return;
    started = true;
    const metadata = session === undefined ? undefined : sessionMetadata(session);
    send({ type: "start", messageId: session?.sessionId, messageMetadata: metadata });
  }

  const isSubagent = (event: AgentEvent): boolean => event.sessionId !== undefined && subagentSessions.has(event.sessionId);

  /** Our event as a `data-<type>` part (dots and underscores as hyphens), its fields as the data. */
  function data(event: AgentEvent, id?: string): void {
    const value = payloadOf(event);
    if (value.sessionId !== undefined && value.sessionId === rootSessionId) delete value.sessionId;
    const transient = TRANSIENT_TYPES.has(event.type) ? true : undefined;
    send({ type: `data-${event.type.replace(/[._]/g, "-")}`, id, data: value, transient });
  }

  // ---- steps and parts ----

  function closeParts(): void {
    for (const part of parts.values()) {
      if (!part.open) continue;
      send({ type: part.kind === "text" ? "text-end" : "reasoning-end", id: part.partId });
      part.open = false;
    }
  }

  /** The arguments of every call still streaming are complete: say so before the step (or stream) ends. */
  function makeInputsAvailable(): void {
    for (const [id, tool] of tools) if (tool.state === "input-streaming") inputAvailable(id, tool);
  }

  function closeStep(): void {
    closeParts();
    makeInputsAvailable();
    if (stepOpen) send({ type: "finish-step" });
    stepOpen = false;
  }

  function partIdFor(messageId: string): string {
    if (!completedIds.has(messageId)) return messageId;
    revisions++;
    return `${messageId}:revised-${revisions}`;
  }

  function openPart(messageId: string, partId: string, kind: OpenPart["kind"], providerMetadata?: JsonObject): OpenPart {
    const part: OpenPart = { partId, kind, open: true, streamed: "" };
    parts.set(messageId, part);
    send({ type: kind === "text" ? "text-start" : "reasoning-start", id: partId, providerMetadata });
    return part;
  }

  function delta(part: OpenPart, text: string): void {
    if (text === "") return;
    if (!part.open) {
      // finish-step closed it in the client: open it again under the same id (a new part in this step).
      send({ type: part.kind === "text" ? "text-start" : "reasoning-start", id: part.partId });
      part.open = true;
    }
    part.streamed += text;
    send({ type: part.kind === "text" ? "text-delta" : "reasoning-delta", id: part.partId, delta: text });
  }

  function endPart(messageId: string, part: OpenPart, providerMetadata?: JsonObject): void {
    if (part.kind === "text") shownTexts.push(part.streamed);
    if (part.open || providerMetadata !== undefined) {
      if (!part.open) send({ type: part.kind === "text" ? "text-start" : "reasoning-start", id: part.partId });
      send({ type: part.kind === "text" ? "text-end" : "reasoning-end", id: part.partId, providerMetadata });
    }
    parts.delete(messageId);
    completedIds.add(messageId);
  }

  // ---- messages ----

  /** True when the message is the root assistant's own text or reasoning (a part); otherwise it is held for `data-message`. */
  function isAssistantPart(event: Extract<AgentEvent, { type: "message.started" | "message.completed" }>): boolean {
    return event.role === "assistant" && !isSubagent(event);
  }

  function partKind(kind: "text" | "reasoning" | "redacted_reasoning"): OpenPart["kind"] {
    return kind === "text" ? "text" : "reasoning";
  }

  function onMessageStarted(event: Extract<AgentEvent, { type: "message.started" }>): void {
    if (parts.has(event.messageId) || held.has(event.messageId)) return;
    if (!isAssistantPart(event)) {
      held.set(event.messageId, { text: "", event });
      return;
    }
    openPart(
      event.messageId,
      partIdFor(event.messageId),
      partKind(event.kind),
      event.kind === "redacted_reasoning" ? { agentstream: { redacted: true } } : undefined,
    );
  }

  function onMessageDelta(event: Extract<AgentEvent, { type: "message.delta" }>): void {
    const waiting = held.get(event.messageId);
    if (waiting !== undefined) {
      waiting.text += event.text;
      return;
    }
    // A delta with no start: root assistant text is the only thing a bare delta can be shown as.
    if (isSubagent(event)) {
      held.set(event.messageId, { text: event.text, event });
      return;
    }
    const part = parts.get(event.messageId) ?? openPart(event.messageId, partIdFor(event.messageId), "text");
    delta(part, event.text);
  }

  function onMessageCompleted(event: Extract<AgentEvent, { type: "message.completed" }>): void {
    const waiting = held.get(event.messageId);
    if (waiting !== undefined || !isAssistantPart(event)) {
      held.delete(event.messageId);
      data(event);
      return;
    }
    const metadata = reasoningMetadata(event);
    const part = parts.get(event.messageId);
    if (part !== undefined && event.text.startsWith(part.streamed)) {
      delta(part, event.text.slice(part.streamed.length));
      endPart(event.messageId, part, metadata);
      return;
    }
    if (part !== undefined) {
      // Streamed text cannot be unsaid: close it as shown; the revision follows as a new part.
      endPart(event.messageId, part);
      revisions++;
      const revised = openPart(event.messageId, `${event.messageId}:revised-${revisions}`, partKind(event.kind));
      delta(revised, event.text);
      endPart(event.messageId, revised, metadata);
      return;
    }
    const fresh = openPart(event.messageId, partIdFor(event.messageId), partKind(event.kind));
    delta(fresh, event.text);
    endPart(event.messageId, fresh, metadata);
  }

  // ---- tools ----

  function startTool(id: string, name: string): ToolState {
    const tool: ToolState = { name, state: "input-streaming", inputText: "" };
    tools.set(id, tool);
    send({ type: "tool-input-start", toolCallId: id, toolName: name, ...TOOL_FLAGS });
    return tool;
  }

  function inputAvailable(id: string, tool: ToolState, input?: JsonValue): void {
    tool.state = "input-available";
    const value = input !== undefined ? input : parseInput(tool.inputText);
    tool.inputText = "";
    send({ type: "tool-input-available", toolCallId: id, toolName: tool.name, input: value, ...TOOL_FLAGS });
  }

  function onToolStarted(event: Extract<AgentEvent, { type: "tool.started" }>): void {
    const known = tools.get(event.toolCallId);
    if (known !== undefined) {
      // A repeat: it may bring the arguments the first start lacked.
      if (known.state === "input-streaming" && event.input !== undefined && known.inputText === "")
        inputAvailable(event.toolCallId, known, event.input);
      else data(event);
      return;
    }
    const tool = startTool(event.toolCallId, event.name);
    if (event.input !== undefined) inputAvailable(event.toolCallId, tool, event.input);
  }

  function onToolInputDelta(event: Extract<AgentEvent, { type: "tool.input.delta" }>): void {
    const tool = tools.get(event.toolCallId) ?? startTool(event.toolCallId, "");
    if (tool.state !== "input-streaming") {
      data(event); // the input is already available: more of it cannot be a tool-input-delta
      return;
    }
    if (event.text === "") return;
    tool.inputText += event.text;
    send({ type: "tool-input-delta", toolCallId: event.toolCallId, inputTextDelta: event.text });
  }

  function onToolProgress(event: Extract<AgentEvent, { type: "tool.progress" }>): void {
    const tool = tools.get(event.toolCallId);
    if (tool?.state === "input-streaming") inputAvailable(event.toolCallId, tool);
    data(event);
  }

  function onToolCompleted(event: Extract<AgentEvent, { type: "tool.completed" }>): void {
    let tool = tools.get(event.toolCallId);
    if (tool === undefined) {
      // No start: tool-input-available creates the part (its input was never seen: null).
      tool = { name: event.name ?? "", state: "input-streaming", inputText: "" };
      tools.set(event.toolCallId, tool);
      inputAvailable(event.toolCallId, tool, null);
    } else if (tool.state === "input-streaming") {
      inputAvailable(event.toolCallId, tool);
    }
    if (event.isError) {
      send({ type: "tool-output-error", toolCallId: event.toolCallId, errorText: event.output ?? errorTextOf(event), ...TOOL_FLAGS });
    } else {
      send({ type: "tool-output-available", toolCallId: event.toolCallId, output: event.output ?? event.result ?? null, ...TOOL_FLAGS });
    }
    // Facts the tool part has no field for (in every client version) travel as a transient data part.
    const extra = compact({
      toolCallId: event.toolCallId,
      result: event.output !== undefined || event.isError ? event.result : undefined,
      exitCode: event.exitCode,
      durationMs: event.durationMs,
    });
    if (Object.keys(extra).length > 1) send({ type: "data-tool-completed", data: extra, transient: true });
  }

  // ---- sessions and turns ----

  function onSessionStarted(event: Extract<AgentEvent, { type: "session.started" }>): void {
    if (!isRootStart(event) && event.sessionId !== undefined) subagentSessions.add(event.sessionId);
    data(event);
  }

  /**
   * A session that is the main agent: one with no parent, or the first session of a stream with no
   * root (a subagent's own transcript), as `summary` counts it.
   */
  function isRootStart(event: Extract<AgentEvent, { type: "session.started" }>): boolean {
    const parented = event.parentSessionId !== undefined || event.parentToolCallId !== undefined;
    if (parented && rootSeen) return false;
    rootSeen = true;
    rootSessionId ??= event.sessionId;
    return true;
  }

  function onSessionCompleted(event: Extract<AgentEvent, { type: "session.completed" }>): void {
    if (isSubagent(event)) {
      data(event);
      return;
    }
    showFinalText(event);
    closeStep();
    lastStatus = event;
    const metadata = compact({
      status: event.status,
      error: event.error,
      finalText: event.finalText,
      usage: event.usage === undefined ? undefined : { ...event.usage },
      costUsd: event.costUsd,
      durationMs: event.durationMs,
      turns: event.turns,
      details: event.details,
    });
    send({ type: "message-metadata", messageMetadata: metadata });
  }

  /**
   * A chat UI shows parts, not metadata: when the final answer never came as a message (no deltas, only the
   * completion carries it), it goes out as a text part of its own before the message ends.
   */
  function showFinalText(event: Extract<AgentEvent, { type: "session.completed" }>): void {
    const answer = event.finalText;
    if (answer === undefined || !isUnshown(answer, shownTexts)) return;
    const id = `${event.sessionId ?? "session"}:final-text`;
    const part = openPart(id, partIdFor(id), "text");
    delta(part, answer);
    endPart(id, part);
  }

  function onTurnStarted(event: Extract<AgentEvent, { type: "turn.started" }>): void {
    if (isSubagent(event)) {
      data(event);
      return;
    }
    closeStep();
    send({ type: "start-step" });
    stepOpen = true;
  }

  function onTurnCompleted(event: Extract<AgentEvent, { type: "turn.completed" }>): void {
    if (!isSubagent(event)) closeStep();
    // The step boundary says the turn ended; its figures (usage, cost, error) travel as data.
    if (
      isSubagent(event) ||
      event.usage !== undefined ||
      event.costUsd !== undefined ||
      event.error !== undefined ||
      event.status !== undefined
    )
      data(event);
  }

  // Function declarations are hoisted, so the table can name the handlers declared above and below.
  const dispatch = createDispatch<void>(
    {
      "session.started": onSessionStarted,
      "session.completed": onSessionCompleted,
      "turn.started": onTurnStarted,
      "turn.completed": onTurnCompleted,
      "message.started": onMessageStarted,
      "message.delta": onMessageDelta,
      "message.completed": onMessageCompleted,
      "tool.started": onToolStarted,
      "tool.input.delta": onToolInputDelta,
      "tool.progress": onToolProgress,
      "tool.completed": onToolCompleted,
      // One part per plan, replaced by each update (a data part with an id replaces the earlier one).
      "plan.updated": (event) => data(event, `plan:${event.planId ?? ""}:${isSubagent(event) ? (event.sessionId ?? "") : ""}`),
    },
    // What the UI message stream has no part for travels as a `data-<type>` part.
    (event) => data(event),
  );

  function handle(event: AgentEvent): void {
    if (preamble !== undefined) {
      if (QUIET_EVENT_TYPES.has(event.type) && preamble.length < MAX_PREAMBLE) {
        preamble.push(event);
        return;
      }
      const early = preamble;
      preamble = undefined;
      const root = event.type === "session.started" && isRootStart(event) ? event : undefined;
      ensureStart(root);
      for (const quiet of early) dispatch(quiet);
      if (root !== undefined) return; // its facts went out as start.messageMetadata
    }
    dispatch(event);
  }

  function take(): Chunk[] {
    const records = out;
    out = [];
    return records;
  }

  return {
    encode(event) {
      handle(event);
      return take();
    },
    end() {
      if (preamble !== undefined && preamble.length > 0) {
        const early = preamble;
        preamble = undefined;
        ensureStart(undefined);
        for (const quiet of early) dispatch(quiet);
      }
      preamble = undefined;
      if (!started) return take(); // no input: no message
      // Messages held for data-message-completed that never completed: send what was streamed.
      for (const [id, message] of held) {
        const value: JsonObject = { ...payloadOf(message.event), text: message.text };
        delete value.position;
        send({ type: "data-message-completed", data: value });
        held.delete(id);
      }
      closeStep();
      if (lastStatus?.status === "error") send({ type: "error", errorText: lastStatus.error ?? "the session failed" });
      if (lastStatus?.status === "interrupted") send({ type: "abort" });
      send({ type: "finish" });
      return take();
    },
  };
}

/** Session facts for `start.messageMetadata`. */
function sessionMetadata(event: Extract<AgentEvent, { type: "session.started" }>): JsonObject {
  return compact({
    sessionId: event.sessionId,
    agent: event.agent,
    agentVersion: event.agentVersion,
    model: event.model,
    cwd: event.cwd,
    tools: event.tools === undefined ? undefined : [...event.tools],
    permissionMode: event.permissionMode,
    parentSessionId: event.parentSessionId,
    parentToolCallId: event.parentToolCallId,
    details: event.details,
  });
}

/** A reasoning signature as provider metadata (the AI SDK's slot for Anthropic signatures), keyed by us. */
function reasoningMetadata(event: Extract<AgentEvent, { type: "message.completed" }>): JsonObject | undefined {
  if (event.kind === "text") return undefined;
  const fields = compact({ signature: event.signature, redacted: event.kind === "redacted_reasoning" ? true : undefined });
  return Object.keys(fields).length === 0 ? undefined : { agentstream: fields };
}

/** Tool arguments streamed as JSON text: the parsed value, or the text itself when it is not JSON. */
function parseInput(text: string): JsonValue {
  if (text === "") return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

function errorTextOf(event: Extract<AgentEvent, { type: "tool.completed" }>): string {
  if (event.result !== undefined) return stringifyRecord(event.result);
  return event.exitCode !== undefined ? `exit code ${event.exitCode}` : "the tool failed";
}
