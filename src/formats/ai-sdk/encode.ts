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
import type { AgentEvent, EventOf, JsonObject, JsonValue } from "../../model/events.ts";
import { isUnshown } from "../../encoding/final-text.ts";
import { UiStreamEncoder } from "../../encoding/ui-stream.ts";
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
  const encoder = new AiSdkEncoderState();
  return {
    encode(event) {
      encoder.handle(event);
      return encoder.take();
    },
    end() {
      if (encoder.preamble !== undefined && encoder.preamble.length > 0) {
        const early = encoder.takePreamble();
        encoder.ensureStart(undefined);
        for (const quiet of early) encoder.dispatch(quiet);
      }
      encoder.preamble = undefined;
      if (!encoder.started) return encoder.take(); // no input: no message
      // Messages held for data-message-completed that never completed: send what was streamed.
      for (const [id, message] of encoder.held) {
        const value: JsonObject = { ...payloadOf(message.event), text: message.text };
        delete value.position;
        encoder.send({ type: "data-message-completed", data: value });
        encoder.held.delete(id);
      }
      encoder.closeStep();
      if (encoder.lastStatus?.status === "error")
        encoder.send({ type: "error", errorText: encoder.lastStatus.error ?? "the session failed" });
      if (encoder.lastStatus?.status === "interrupted") encoder.send({ type: "abort" });
      encoder.send({ type: "finish" });
      return encoder.take();
    },
  };
}

/** What one AI SDK writer remembers (the message, open parts, tool calls), and its handlers. */
class AiSdkEncoderState extends UiStreamEncoder<Chunk> {
  started = false;
  rootSessionId: string | undefined;
  stepOpen = false;
  lastStatus: Extract<AgentEvent, { type: "session.completed" }> | undefined;
  revisions = 0;
  readonly parts = new Map<string, OpenPart>();
  readonly completedIds = new Set<string>();
  readonly held = new Map<string, HeldMessage>();
  readonly tools = new Map<string, ToolState>();
  readonly subagentSessions = new Set<string>();
  /** The root assistant's text parts as shown, to tell whether the final answer is already among them. */
  readonly shownTexts: string[] = [];

  ensureStart(session: Extract<AgentEvent, { type: "session.started" }> | undefined): void {
    if (this.started) return;
    this.started = true;
    const metadata = session === undefined ? undefined : sessionMetadata(session);
    this.send({ type: "start", messageId: session?.sessionId, messageMetadata: metadata });
  }

  isSubagent(event: AgentEvent): boolean {
    return event.sessionId !== undefined && this.subagentSessions.has(event.sessionId);
  }

  /** Our event as a `data-<type>` part (dots and underscores as hyphens), its fields as the data. */
  data(event: AgentEvent, id?: string): void {
    const value = payloadOf(event);
    if (value.sessionId !== undefined && value.sessionId === this.rootSessionId) delete value.sessionId;
    const transient = TRANSIENT_TYPES.has(event.type) ? true : undefined;
    this.send({ type: `data-${event.type.replace(/[._]/g, "-")}`, id, data: value, transient });
  }

  // ---- steps and parts ----

  closeParts(): void {
    for (const part of this.parts.values()) {
      if (!part.open) continue;
      this.send({ type: part.kind === "text" ? "text-end" : "reasoning-end", id: part.partId });
      part.open = false;
    }
  }

  /** The arguments of every call still streaming are complete: say so before the step (or stream) ends. */
  makeInputsAvailable(): void {
    for (const [id, tool] of this.tools) if (tool.state === "input-streaming") this.inputAvailable(id, tool);
  }

  closeStep(): void {
    this.closeParts();
    this.makeInputsAvailable();
    if (this.stepOpen) this.send({ type: "finish-step" });
    this.stepOpen = false;
  }

  partIdFor(messageId: string): string {
    if (!this.completedIds.has(messageId)) return messageId;
    this.revisions++;
    return `${messageId}:revised-${this.revisions}`;
  }

  openPart(messageId: string, partId: string, kind: OpenPart["kind"], providerMetadata?: JsonObject): OpenPart {
    const part: OpenPart = { partId, kind, open: true, streamed: "" };
    this.parts.set(messageId, part);
    this.send({ type: kind === "text" ? "text-start" : "reasoning-start", id: partId, providerMetadata });
    return part;
  }

  delta(part: OpenPart, text: string): void {
    if (text === "") return;
    if (!part.open) {
      // finish-step closed it in the client: open it again under the same id (a new part in this step).
      this.send({ type: part.kind === "text" ? "text-start" : "reasoning-start", id: part.partId });
      part.open = true;
    }
    part.streamed += text;
    this.send({ type: part.kind === "text" ? "text-delta" : "reasoning-delta", id: part.partId, delta: text });
  }

  endPart(messageId: string, part: OpenPart, providerMetadata?: JsonObject): void {
    if (part.kind === "text") this.shownTexts.push(part.streamed);
    if (part.open || providerMetadata !== undefined) {
      if (!part.open) this.send({ type: part.kind === "text" ? "text-start" : "reasoning-start", id: part.partId });
      this.send({ type: part.kind === "text" ? "text-end" : "reasoning-end", id: part.partId, providerMetadata });
    }
    this.parts.delete(messageId);
    this.completedIds.add(messageId);
  }

  // ---- messages ----

  /** True when the message is the root assistant's own text or reasoning (a part); otherwise it is held for `data-message`. */
  isAssistantPart(event: Extract<AgentEvent, { type: "message.started" | "message.completed" }>): boolean {
    return event.role === "assistant" && !this.isSubagent(event);
  }

  partKind(kind: "text" | "reasoning" | "redacted_reasoning"): OpenPart["kind"] {
    return kind === "text" ? "text" : "reasoning";
  }

  onMessageStarted(event: Extract<AgentEvent, { type: "message.started" }>): void {
    if (this.parts.has(event.messageId) || this.held.has(event.messageId)) return;
    if (!this.isAssistantPart(event)) {
      this.held.set(event.messageId, { text: "", event });
      return;
    }
    this.openPart(
      event.messageId,
      this.partIdFor(event.messageId),
      this.partKind(event.kind),
      event.kind === "redacted_reasoning" ? { agentstream: { redacted: true } } : undefined,
    );
  }

  onMessageDelta(event: Extract<AgentEvent, { type: "message.delta" }>): void {
    const waiting = this.held.get(event.messageId);
    if (waiting !== undefined) {
      waiting.text += event.text;
      return;
    }
    // A delta with no start: root assistant text is the only thing a bare delta can be shown as.
    if (this.isSubagent(event)) {
      this.held.set(event.messageId, { text: event.text, event });
      return;
    }
    const part = this.parts.get(event.messageId) ?? this.openPart(event.messageId, this.partIdFor(event.messageId), "text");
    this.delta(part, event.text);
  }

  onMessageCompleted(event: Extract<AgentEvent, { type: "message.completed" }>): void {
    const waiting = this.held.get(event.messageId);
    if (waiting !== undefined || !this.isAssistantPart(event)) {
      this.held.delete(event.messageId);
      this.data(event);
      return;
    }
    const metadata = reasoningMetadata(event);
    const part = this.parts.get(event.messageId);
    if (part !== undefined && event.text.startsWith(part.streamed)) {
      this.delta(part, event.text.slice(part.streamed.length));
      this.endPart(event.messageId, part, metadata);
      return;
    }
    if (part !== undefined) {
      // Streamed text cannot be unsaid: close it as shown; the revision follows as a new part.
      this.endPart(event.messageId, part);
      this.revisions++;
      const revised = this.openPart(event.messageId, `${event.messageId}:revised-${this.revisions}`, this.partKind(event.kind));
      this.delta(revised, event.text);
      this.endPart(event.messageId, revised, metadata);
      return;
    }
    const fresh = this.openPart(event.messageId, this.partIdFor(event.messageId), this.partKind(event.kind));
    this.delta(fresh, event.text);
    this.endPart(event.messageId, fresh, metadata);
  }

  // ---- tools ----

  startTool(id: string, name: string): ToolState {
    const tool: ToolState = { name, state: "input-streaming", inputText: "" };
    this.tools.set(id, tool);
    this.send({ type: "tool-input-start", toolCallId: id, toolName: name, ...TOOL_FLAGS });
    return tool;
  }

  inputAvailable(id: string, tool: ToolState, input?: JsonValue): void {
    tool.state = "input-available";
    const value = input !== undefined ? input : parseInput(tool.inputText);
    tool.inputText = "";
    this.send({ type: "tool-input-available", toolCallId: id, toolName: tool.name, input: value, ...TOOL_FLAGS });
  }

  onToolStarted(event: Extract<AgentEvent, { type: "tool.started" }>): void {
    const known = this.tools.get(event.toolCallId);
    if (known !== undefined) {
      // A repeat: it may bring the arguments the first start lacked.
      if (known.state === "input-streaming" && event.input !== undefined && known.inputText === "")
        this.inputAvailable(event.toolCallId, known, event.input);
      else this.data(event);
      return;
    }
    const tool = this.startTool(event.toolCallId, event.name);
    if (event.input !== undefined) this.inputAvailable(event.toolCallId, tool, event.input);
  }

  onToolInputDelta(event: Extract<AgentEvent, { type: "tool.input.delta" }>): void {
    const tool = this.tools.get(event.toolCallId) ?? this.startTool(event.toolCallId, "");
    if (tool.state !== "input-streaming") {
      this.data(event); // the input is already available: more of it cannot be a tool-input-delta
      return;
    }
    if (event.text === "") return;
    tool.inputText += event.text;
    this.send({ type: "tool-input-delta", toolCallId: event.toolCallId, inputTextDelta: event.text });
  }

  onToolProgress(event: Extract<AgentEvent, { type: "tool.progress" }>): void {
    const tool = this.tools.get(event.toolCallId);
    if (tool?.state === "input-streaming") this.inputAvailable(event.toolCallId, tool);
    this.data(event);
  }

  onToolCompleted(event: Extract<AgentEvent, { type: "tool.completed" }>): void {
    let tool = this.tools.get(event.toolCallId);
    if (tool === undefined) {
      // No start: tool-input-available creates the part (its input was never seen: null).
      tool = { name: event.name ?? "", state: "input-streaming", inputText: "" };
      this.tools.set(event.toolCallId, tool);
      this.inputAvailable(event.toolCallId, tool, null);
    } else if (tool.state === "input-streaming") {
      this.inputAvailable(event.toolCallId, tool);
    }
    if (event.isError) {
      this.send({ type: "tool-output-error", toolCallId: event.toolCallId, errorText: event.output ?? errorTextOf(event), ...TOOL_FLAGS });
    } else {
      this.send({
        type: "tool-output-available",
        toolCallId: event.toolCallId,
        output: event.output ?? event.result ?? null,
        ...TOOL_FLAGS,
      });
    }
    // Facts the tool part has no field for (in every client version) travel as a transient data part.
    const extra = compact({
      toolCallId: event.toolCallId,
      result: event.output !== undefined || event.isError ? event.result : undefined,
      exitCode: event.exitCode,
      durationMs: event.durationMs,
    });
    if (Object.keys(extra).length > 1) this.send({ type: "data-tool-completed", data: extra, transient: true });
  }

  // ---- sessions and turns ----

  // One part per plan, replaced by each update (a data part with an id replaces the earlier one).
  onPlanUpdated(event: EventOf<"plan.updated">): void {
    this.data(event, `plan:${event.planId ?? ""}:${this.isSubagent(event) ? (event.sessionId ?? "") : ""}`);
  }

  /** What the UI message stream has no part for travels as a `data-<type>` part. */
  onOther(event: AgentEvent): void {
    this.data(event);
  }

  onSessionStarted(event: Extract<AgentEvent, { type: "session.started" }>): void {
    const sessionId = event.sessionId;
    if (!this.isRootStart(event) && sessionId !== undefined) this.subagentSessions.add(sessionId);
    this.data(event);
  }

  /**
   * A session that is the main agent: one with no parent, or the first session of a stream with no
   * root (a subagent's own transcript), as `summary` counts it.
   */
  override isRootStart(event: AgentEvent): event is EventOf<"session.started"> {
    if (!super.isRootStart(event)) return false;
    this.rootSessionId ??= event.sessionId;
    return true;
  }

  onSessionCompleted(event: Extract<AgentEvent, { type: "session.completed" }>): void {
    if (this.isSubagent(event)) {
      this.data(event);
      return;
    }
    this.showFinalText(event);
    this.closeStep();
    this.lastStatus = event;
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
    this.send({ type: "message-metadata", messageMetadata: metadata });
  }

  /**
   * A chat UI shows parts, not metadata: when the final answer never came as a message (no deltas, only the
   * completion carries it), it goes out as a text part of its own before the message ends.
   */
  showFinalText(event: Extract<AgentEvent, { type: "session.completed" }>): void {
    const answer = event.finalText;
    if (answer === undefined || !isUnshown(answer, this.shownTexts)) return;
    const id = `${event.sessionId ?? "session"}:final-text`;
    const part = this.openPart(id, this.partIdFor(id), "text");
    this.delta(part, answer);
    this.endPart(id, part);
  }

  onTurnStarted(event: Extract<AgentEvent, { type: "turn.started" }>): void {
    if (this.isSubagent(event)) {
      this.data(event);
      return;
    }
    this.closeStep();
    this.send({ type: "start-step" });
    this.stepOpen = true;
  }

  onTurnCompleted(event: Extract<AgentEvent, { type: "turn.completed" }>): void {
    if (!this.isSubagent(event)) this.closeStep();
    // The step boundary says the turn ended; its figures (usage, cost, error) travel as data.
    if (
      this.isSubagent(event) ||
      event.usage !== undefined ||
      event.costUsd !== undefined ||
      event.error !== undefined ||
      event.status !== undefined
    )
      this.data(event);
  }

  handle(event: AgentEvent): void {
    if (this.preamble !== undefined) {
      if (this.hold(event)) return;
      const early = this.takePreamble();
      const root = this.isRootStart(event) ? event : undefined;
      this.ensureStart(root);
      for (const quiet of early) this.dispatch(quiet);
      if (root !== undefined) return; // its facts went out as start.messageMetadata
    }
    this.dispatch(event);
  }
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
