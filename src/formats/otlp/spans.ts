/**
 * The mapping (docs/otel.md): our events → finished spans, following the GenAI semantic conventions for agents. A
 * session is an `invoke_agent` span; each model turn (or, for dialects without turn events, each model step: the
 * model's output between two hand-overs: a prompt, a tool result) a `chat {model}` span; each tool call an
 * `execute_tool {name}` span; a subagent's session nests under the tool call that started it. Spans come out as they
 * end (`onSpan`), so a live run can export each at once; only open spans are held.
 */
import type { AgentEvent, EventOf, JsonValue, Usage } from "../../model/events.ts";
import { addUsage, emptyUsage, isUsageEmpty } from "../../model/usage.ts";
import { createClock, type Clock } from "../../encoding/clock.ts";
import { redactSecrets, redactText } from "../../encoding/redact.ts";
import type { SessionFacts } from "../../encoding/record-encoder.ts";
import { AGENTSTREAM, GEN_AI, GENERAL, OPERATION, TOOL_TYPE } from "./attributes.ts";
import { spanIdOf, traceIdOf } from "./ids.ts";
import { providerOf } from "./provider.ts";
import { type FinishedSpan, SPAN_KIND, STATUS_CODE, type SpanAttributes, type SpanKindValue } from "./wire.ts";

/** What the mapping reads besides the events (docs/otel.md). */
export interface SpanMappingOptions {
  /** Write prompts, answers, tool arguments and results (`--capture-content`); off by default, as the conventions say. */
  readonly captureContent?: boolean;
  /** `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`: the pinned conventions only, not the older names too. */
  readonly latestConventionsOnly?: boolean;
  /** The session id of a stream that names none (`run`: its run id); else one is derived from the stream's start. */
  readonly fallbackSessionId?: string;
  /** The clock for events without a time before any time is known (a parameter for tests). */
  readonly now?: () => number;
  /** The session's facts as `summary --json` folds them (EncoderOptions.sessionFacts); else its end record's. */
  readonly sessionFacts?: () => SessionFacts;
}

/** A span still open: where it sits and what it has gathered. */
interface OpenSpan {
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly startMs: number;
  lastMs: number;
  readonly attributes: SpanAttributes;
}

interface ChatStep extends OpenSpan {
  readonly byTurn: boolean;
  usage: Usage;
  turnUsage: Usage | undefined;
  model: string | undefined;
  toolCalls: number;
  firstChunkMs: number | undefined;
  output: JsonValue[];
  failed: string | undefined;
}

interface ToolSpan extends OpenSpan {
  readonly name: string;
  input: string[];
}

/** One agent session (the root or a subagent) of the trace. */
interface SessionState {
  readonly id: string;
  readonly span: OpenSpan;
  readonly parentSessionId: string | undefined;
  agent: string | undefined;
  model: string | undefined;
  responseModel: string | undefined;
  step: ChatStep | undefined;
  steps: number;
  /** When control last passed to the model: a chat step without turn events starts here. */
  handedOverMs: number;
  lastCumulative: Usage | undefined;
  usage: Usage;
  readonly tools: Map<string, ToolSpan>;
  pendingInput: JsonValue[];
  completed: EventOf<"session.completed"> | undefined;
}

/** Turns events into spans as they end; one instance per input stream (it follows the reader's session boundaries). */
export class SpanMapper {
  private readonly clock: Clock;
  private readonly content: boolean;
  private readonly latestOnly: boolean;
  private readonly fallbackSessionId: string | undefined;
  private rootKey: string | undefined;
  /** The root was keyed before any event named its session (the run id, under `run`): the first session named takes it over. */
  private rootUnnamed = false;
  private traceId = "";
  private dialect: string | undefined;
  private readonly newFacts: () => SessionFacts;
  private summary: SessionFacts;
  private readonly sessions = new Map<string, SessionState>();
  /** The session an event without a session id belongs to: the one that spoke last. */
  private current: SessionState | undefined;
  private readonly emit: (span: FinishedSpan) => void;
  private readonly traceEnded: () => void;

  constructor(options: SpanMappingOptions, onSpan: (span: FinishedSpan) => void, onTraceEnd: () => void = () => {}) {
    this.clock = createClock(options.now);
    this.content = options.captureContent === true;
    this.latestOnly = options.latestConventionsOnly === true;
    this.fallbackSessionId = options.fallbackSessionId;
    this.newFacts = options.sessionFacts ?? endRecordFacts;
    this.summary = this.newFacts();
    this.emit = onSpan;
    this.traceEnded = onTraceEnd;
  }

  /** One event: the spans it ends come out through `onSpan`. */
  add(event: AgentEvent): void {
    const at = this.clock.ms(event.time);
    this.dialect ??= event.source?.dialect;
    if (event.type === "session.started" && this.namesUnnamedRoot(event)) this.renameRoot(event.sessionId ?? "");
    else if (event.type === "session.started" && this.startsNewTrace(event)) this.endTrace();
    const session = this.sessionOf(event, at);
    this.summary.add(event);
    session.span.lastMs = Math.max(session.span.lastMs, at);
    this.handle(event, session, at);
  }

  /** The input ended: whatever is open ends at the last time seen. */
  end(): void {
    if (this.rootKey !== undefined) this.endTrace();
  }

  /**
   * Under `run` the agent may speak (a stderr line, a heartbeat) before it names its session (Codex's thread id): the
   * root opened under the run id is that session, not a trace of its own, while nothing of it has ended yet.
   */
  private namesUnnamedRoot(event: EventOf<"session.started">): boolean {
    const root = this.rootSession();
    if (!this.rootUnnamed || root === undefined || event.sessionId === undefined) return false;
    if (event.parentSessionId !== undefined || event.parentToolCallId !== undefined) return false;
    return root.steps === 0 && root.step === undefined && root.tools.size === 0;
  }

  private renameRoot(id: string): void {
    const root = this.rootSession();
    if (this.rootKey !== undefined) this.sessions.delete(this.rootKey);
    this.rootKey = id;
    this.rootUnnamed = false;
    this.traceId = traceIdOf(id);
    const renamed = this.openSession(id, undefined, undefined, root?.span.startMs ?? 0);
    renamed.span.lastMs = root?.span.lastMs ?? renamed.span.lastMs;
    this.current = renamed;
  }

  private startsNewTrace(event: EventOf<"session.started">): boolean {
    if (this.rootKey === undefined) return false;
    if (event.parentSessionId !== undefined || event.parentToolCallId !== undefined) return false;
    if (event.sessionId === undefined || this.sessions.has(event.sessionId)) return false;
    return true;
  }

  private sessionOf(event: AgentEvent, at: number): SessionState {
    const session = this.findOrOpen(event, at);
    this.current = session;
    return session;
  }

  private findOrOpen(event: AgentEvent, at: number): SessionState {
    const id = event.sessionId;
    const known = id === undefined ? this.current : this.sessions.get(id);
    if (known !== undefined) return known;
    if (this.rootKey === undefined || id === undefined) return this.current ?? this.openRoot(event, at);
    const started = event.type === "session.started" ? event : undefined;
    const parent = (started?.parentSessionId === undefined ? undefined : this.sessions.get(started.parentSessionId)) ?? this.rootSession();
    const parentSpanId =
      started?.parentToolCallId === undefined ? parent?.span.spanId : spanIdOf(this.rootKey, `tool\u0000${started.parentToolCallId}`);
    return this.openSession(id, parentSpanId, parent?.id, at);
  }

  private rootSession(): SessionState | undefined {
    return this.rootKey === undefined ? undefined : this.sessions.get(this.rootKey);
  }

  private openRoot(event: AgentEvent, at: number): SessionState {
    const key = event.sessionId ?? this.fallbackSessionId ?? `${event.source?.dialect ?? "stream"}@${event.time ?? at}`;
    this.rootKey = key;
    this.rootUnnamed = event.sessionId === undefined;
    this.traceId = traceIdOf(key);
    return this.openSession(key, undefined, undefined, at);
  }

  private openSession(id: string, parentSpanId: string | undefined, parentSessionId: string | undefined, at: number): SessionState {
    const rootKey = this.rootKey ?? id;
    const session: SessionState = {
      id,
      span: { spanId: spanIdOf(rootKey, `session\u0000${id}`), parentSpanId, startMs: at, lastMs: at, attributes: {} },
      parentSessionId,
      agent: undefined,
      model: undefined,
      responseModel: undefined,
      step: undefined,
      steps: 0,
      handedOverMs: at,
      lastCumulative: undefined,
      usage: emptyUsage(),
      tools: new Map(),
      pendingInput: [],
      completed: undefined,
    };
    this.sessions.set(id, session);
    return session;
  }

  private handle(event: AgentEvent, session: SessionState, at: number): void {
    switch (event.type) {
      case "session.started":
        session.agent ??= event.agent;
        session.model ??= event.model;
        if (event.agentVersion !== undefined) session.span.attributes[GEN_AI.agentVersion] = event.agentVersion;
        return;
      case "session.completed":
        session.completed = event;
        // The root's span ends with the trace (the input's end, or the next session): an agent may report twice.
        if (session.id === this.rootKey) this.endStep(session, at);
        else this.endSession(session, at);
        return;
      case "turn.started":
        this.endStep(session, at);
        session.step = this.openStep(session, at, true);
        session.step.attributes[AGENTSTREAM.turnId] = event.turnId;
        return;
      case "turn.completed":
        this.turnCompleted(event, session, at);
        return;
      case "usage":
        this.usage(event, session, at);
        return;
      case "message.started":
      case "message.delta":
        if (event.role === "assistant") this.modelOutput(session, at, true);
        return;
      case "message.completed":
        this.messageCompleted(event, session, at);
        return;
      case "tool.started":
        this.toolStarted(event, session, at);
        return;
      case "tool.input.delta":
        if (this.content) session.tools.get(event.toolCallId)?.input.push(event.text);
        return;
      case "tool.completed":
        this.toolCompleted(event, session, at);
        return;
      default:
        return;
    }
  }

  private openStep(session: SessionState, at: number, byTurn: boolean): ChatStep {
    const rootKey = this.rootKey ?? session.id;
    const ordinal = session.steps++;
    const step: ChatStep = {
      spanId: spanIdOf(rootKey, `chat\u0000${session.id}\u0000${ordinal}`),
      parentSpanId: session.span.spanId,
      startMs: byTurn ? at : Math.min(session.handedOverMs, at),
      lastMs: at,
      attributes: {},
      byTurn,
      usage: emptyUsage(),
      turnUsage: undefined,
      model: undefined,
      toolCalls: 0,
      firstChunkMs: undefined,
      output: [],
      failed: undefined,
    };
    if (this.content && session.pendingInput.length > 0) {
      step.attributes[GEN_AI.inputMessages] = JSON.stringify(session.pendingInput);
      session.pendingInput = [];
    }
    return step;
  }

  /** The model said something: a chat step is open (a new one when none is), and this is its latest output. */
  private modelOutput(session: SessionState, at: number, streamed: boolean): ChatStep {
    session.step ??= this.openStep(session, at, false);
    const step = session.step;
    if (streamed && step.firstChunkMs === undefined) step.firstChunkMs = at;
    step.lastMs = Math.max(step.lastMs, at);
    return step;
  }

  private messageCompleted(event: EventOf<"message.completed">, session: SessionState, at: number): void {
    if (event.role === "assistant") {
      const step = this.modelOutput(session, at, false);
      if (this.content && event.kind === "text")
        step.output.push({ role: "assistant", parts: [{ type: "text", content: redactText(event.text) }] });
      return;
    }
    if (event.role !== "user") return;
    // A prompt hands control back to the model: the step before it is over.
    if (session.step !== undefined && !session.step.byTurn) this.endStep(session, at);
    session.handedOverMs = at;
    if (this.content) session.pendingInput.push({ role: "user", parts: [{ type: "text", content: redactText(event.text) }] });
  }

  private usage(event: EventOf<"usage">, session: SessionState, at: number): void {
    let usage = event.usage;
    if (event.scope === "cumulative") {
      usage = difference(event.usage, session.lastCumulative);
      session.lastCumulative = event.usage;
    }
    const step = this.modelOutput(session, at, false);
    step.usage = addUsage(step.usage, usage);
    if (event.model !== undefined) step.model = event.model;
  }

  private turnCompleted(event: EventOf<"turn.completed">, session: SessionState, at: number): void {
    const step = session.step ?? this.openStep(session, at, true);
    session.step = step;
    step.lastMs = Math.max(step.lastMs, at);
    if (event.usage !== undefined) step.turnUsage = event.usage;
    if (event.status === "error") step.failed = event.error ?? "turn failed";
    this.endStep(session, at);
  }

  private endStep(session: SessionState, at: number): void {
    const step = session.step;
    if (step === undefined) return;
    session.step = undefined;
    const usage = step.turnUsage ?? step.usage;
    session.usage = addUsage(session.usage, usage);
    const model = step.model ?? session.model;
    if (step.model !== undefined) session.responseModel = step.model;
    const attributes: SpanAttributes = { ...this.common(session, OPERATION.chat, model) };
    if (step.model !== undefined) attributes[GEN_AI.responseModel] = step.model;
    writeUsage(attributes, usage);
    attributes[GEN_AI.finishReasons] = [step.failed !== undefined ? "error" : step.toolCalls > 0 ? "tool_call" : "stop"];
    if (step.firstChunkMs !== undefined && step.firstChunkMs > step.startMs)
      attributes[GEN_AI.timeToFirstChunk] = (step.firstChunkMs - step.startMs) / 1000;
    if (this.content && step.output.length > 0) attributes[GEN_AI.outputMessages] = JSON.stringify(step.output);
    Object.assign(attributes, step.attributes);
    const endMs = step.byTurn ? Math.max(step.lastMs, at) : step.lastMs;
    if (step.failed !== undefined) attributes[GENERAL.errorType] = "turn_failed";
    this.finish(
      step,
      model === undefined ? OPERATION.chat : `${OPERATION.chat} ${model}`,
      SPAN_KIND.client,
      endMs,
      attributes,
      step.failed,
    );
    session.handedOverMs = Math.max(session.handedOverMs, endMs);
  }

  private toolStarted(event: EventOf<"tool.started">, session: SessionState, at: number): void {
    const step = this.modelOutput(session, at, false);
    step.toolCalls++;
    const rootKey = this.rootKey ?? session.id;
    const attributes: SpanAttributes = {};
    attributes[GEN_AI.toolType] = event.kind === "mcp" || event.server !== undefined ? TOOL_TYPE.extension : TOOL_TYPE.function;
    if (event.kind !== undefined) attributes[AGENTSTREAM.toolKind] = event.kind;
    if (event.description !== undefined) attributes[GEN_AI.toolDescription] = redactText(event.description);
    const tool: ToolSpan = {
      spanId: spanIdOf(rootKey, `tool\u0000${event.toolCallId}`),
      parentSpanId: session.span.spanId,
      startMs: at,
      lastMs: at,
      attributes,
      name: event.name,
      input: [],
    };
    if (this.content && event.input !== undefined) tool.input.push(JSON.stringify(redactSecrets(event.input)));
    if (this.content) step.output.push({ role: "assistant", parts: [{ type: "tool_call", id: event.toolCallId, name: event.name }] });
    session.tools.set(event.toolCallId, tool);
  }

  private toolCompleted(event: EventOf<"tool.completed">, session: SessionState, at: number): void {
    // The model's step ends where its tools start to answer.
    if (session.step !== undefined && !session.step.byTurn) this.endStep(session, at);
    const tool = session.tools.get(event.toolCallId) ?? this.lateTool(event, session, at);
    session.tools.delete(event.toolCallId);
    session.handedOverMs = at;
    const attributes = this.toolAttributes(session, tool, event.toolCallId);
    if (event.exitCode !== undefined) attributes[AGENTSTREAM.exitCode] = event.exitCode;
    if (this.content) {
      const result = event.output ?? (event.result === undefined ? undefined : JSON.stringify(event.result));
      if (result !== undefined) {
        attributes[GEN_AI.toolResult] = redactText(result);
        session.pendingInput.push({
          role: "tool",
          parts: [{ type: "tool_call_response", id: event.toolCallId, response: redactText(result) }],
        });
      }
    }
    const failed = event.isError ? (event.output?.slice(0, 200) ?? "the tool call failed") : undefined;
    if (failed !== undefined) attributes[GENERAL.errorType] = "tool_error";
    this.finish(
      tool,
      `${OPERATION.executeTool} ${tool.name}`,
      SPAN_KIND.internal,
      at,
      attributes,
      failed === undefined ? undefined : redactText(failed),
    );
  }

  /** A tool that completed without a start the stream showed: a span of its end alone. */
  private lateTool(event: EventOf<"tool.completed">, session: SessionState, at: number): ToolSpan {
    const rootKey = this.rootKey ?? session.id;
    const attributes: SpanAttributes = { [GEN_AI.toolType]: TOOL_TYPE.function };
    const startMs = event.durationMs === undefined ? at : at - event.durationMs;
    const spanId = spanIdOf(rootKey, `tool\u0000${event.toolCallId}`);
    return { spanId, parentSpanId: session.span.spanId, startMs, lastMs: at, attributes, name: event.name ?? "tool", input: [] };
  }

  private toolAttributes(session: SessionState, tool: ToolSpan, toolCallId: string): SpanAttributes {
    const attributes: SpanAttributes = { ...this.common(session, OPERATION.executeTool, undefined) };
    attributes[GEN_AI.toolName] = tool.name;
    attributes[GEN_AI.toolCallId] = toolCallId;
    Object.assign(attributes, tool.attributes);
    if (this.content && tool.input.length > 0) attributes[GEN_AI.toolArguments] = redactText(tool.input.join(""));
    return attributes;
  }

  /** What every span of the session carries: the operation, the conversation, the provider, the request's model. */
  private common(session: SessionState, operation: string, model: string | undefined): SpanAttributes {
    const attributes: SpanAttributes = { [GEN_AI.operationName]: operation, [GEN_AI.conversationId]: this.rootKey ?? session.id };
    const provider = providerOf(model ?? session.model, this.agentOf(session));
    if (provider !== undefined) {
      attributes[GEN_AI.providerName] = provider;
      if (!this.latestOnly) attributes[GEN_AI.system] = provider;
    }
    if (model !== undefined) attributes[GEN_AI.requestModel] = model;
    return attributes;
  }

  private agentOf(session: SessionState): string | undefined {
    return session.agent ?? this.rootSession()?.agent ?? this.dialect;
  }

  private endSession(session: SessionState, at: number): void {
    this.endStep(session, at);
    for (const [id, tool] of session.tools) {
      const attributes = this.toolAttributes(session, tool, id);
      attributes[GENERAL.errorType] = "incomplete";
      this.finish(tool, `${OPERATION.executeTool} ${tool.name}`, SPAN_KIND.internal, at, attributes, "the tool call did not complete");
    }
    session.tools.clear();
    this.sessions.delete(session.id);
    if (this.current === session) this.current = undefined;
    const isRoot = session.id === this.rootKey;
    // A subagent that never said it ended ends with its root.
    if (isRoot) for (const other of [...this.sessions.values()].reverse()) this.endSession(other, other.span.lastMs);
    const attributes = this.sessionAttributes(session, isRoot);
    const status = attributes[AGENTSTREAM.status];
    const failed = status === "error" || status === "interrupted" ? String(attributes[AGENTSTREAM.error] ?? status) : undefined;
    if (failed !== undefined) attributes[GENERAL.errorType] = status === "interrupted" ? "interrupted" : "agent_error";
    const agentName = attributes[GEN_AI.agentName];
    this.finish(session.span, `${OPERATION.invokeAgent} ${String(agentName)}`, SPAN_KIND.internal, at, attributes, failed);
  }

  private sessionAttributes(session: SessionState, isRoot: boolean): SpanAttributes {
    const attributes: SpanAttributes = { ...this.common(session, OPERATION.invokeAgent, session.model) };
    attributes[GEN_AI.agentName] = this.agentOf(session) ?? "agent";
    if (session.responseModel !== undefined) attributes[GEN_AI.responseModel] = session.responseModel;
    if (this.dialect !== undefined) attributes[AGENTSTREAM.dialect] = this.dialect;
    Object.assign(attributes, session.span.attributes);
    if (!isRoot) {
      attributes[AGENTSTREAM.parentSessionId] = session.parentSessionId ?? "";
      writeUsage(attributes, session.completed?.usage ?? session.usage);
      if (session.completed !== undefined) attributes[AGENTSTREAM.status] = session.completed.status;
      return attributes;
    }
    const summary = this.summary.result(this.dialect);
    writeUsage(attributes, summary.usage);
    attributes[AGENTSTREAM.status] = summary.status;
    if (summary.error !== null) attributes[AGENTSTREAM.error] = redactText(summary.error);
    if (summary.costUsd !== null) {
      attributes[AGENTSTREAM.costUsd] = summary.costUsd;
      attributes[AGENTSTREAM.costEstimated] = summary.costEstimated;
    }
    if (summary.turns !== null) attributes[AGENTSTREAM.turns] = summary.turns;
    if (summary.subagents > 0) attributes[AGENTSTREAM.subagents] = summary.subagents;
    const repairs = Object.values(summary.repairs).reduce((a, b) => a + b, 0);
    if (repairs > 0) {
      attributes[AGENTSTREAM.repairs] = repairs;
      attributes[AGENTSTREAM.repairKinds] = Object.keys(summary.repairs).sort();
    }
    if (this.content && summary.finalText !== null)
      attributes[GEN_AI.outputMessages] = JSON.stringify([
        { role: "assistant", parts: [{ type: "text", content: redactText(summary.finalText) }], finish_reason: "stop" },
      ]);
    return attributes;
  }

  private finish(span: OpenSpan, name: string, kind: SpanKindValue, endMs: number, attributes: SpanAttributes, error?: string): void {
    this.emit({
      traceId: this.traceId,
      spanId: span.spanId,
      ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
      name,
      kind,
      startMs: span.startMs,
      endMs: Math.max(endMs, span.startMs),
      attributes,
      status: error === undefined ? { code: STATUS_CODE.unset } : { code: STATUS_CODE.error, message: error },
    });
  }

  /** The trace ends with its root session, at its last event; its subagents that never said they ended end with it. */
  private endTrace(): void {
    const root = this.rootSession();
    if (root !== undefined) this.endSession(root, root.span.lastMs);
    this.rootKey = undefined;
    this.current = undefined;
    this.summary = this.newFacts();
    this.traceEnded();
  }
}

/**
 * The facts of a session without the summary's builder (a library caller that hands none): its root end record's,
 * the usage of its turns and requests added up when that record has none.
 */
function endRecordFacts(): SessionFacts {
  let completed: EventOf<"session.completed"> | undefined;
  let usage = emptyUsage();
  const repairs: Record<string, number> = {};
  return {
    add(event) {
      if (event.type === "session.completed") completed ??= event;
      else if (event.type === "turn.completed" && event.usage !== undefined) usage = addUsage(usage, event.usage);
      else if (event.type === "usage" && event.scope === "delta") usage = addUsage(usage, event.usage);
      else if (event.type === "repair") repairs[event.kind] = (repairs[event.kind] ?? 0) + 1;
    },
    result: () => ({
      usage: completed?.usage !== undefined && !isUsageEmpty(completed.usage) ? completed.usage : usage,
      status: completed?.status ?? "incomplete",
      error: completed?.error ?? null,
      costUsd: completed?.costUsd ?? null,
      costEstimated: false,
      turns: completed?.turns ?? null,
      subagents: 0,
      repairs,
      finalText: completed?.finalText ?? null,
    }),
  };
}

/** What a running total adds since the previous one (the first counts whole). */
function difference(total: Usage, previous: Usage | undefined): Usage {
  if (previous === undefined) return total;
  const minus = (a: number | null, b: number | null): number | null => (a === null ? null : Math.max(0, a - (b ?? 0)));
  return {
    inputTokens: minus(total.inputTokens, previous.inputTokens),
    outputTokens: minus(total.outputTokens, previous.outputTokens),
    cacheReadTokens: minus(total.cacheReadTokens, previous.cacheReadTokens),
    cacheWriteTokens: minus(total.cacheWriteTokens, previous.cacheWriteTokens),
    reasoningTokens: minus(total.reasoningTokens, previous.reasoningTokens),
  };
}

/** The known figures of `usage` as `gen_ai.usage.*`; an unknown one is left out, never written as 0. */
function writeUsage(attributes: SpanAttributes, usage: Usage): void {
  if (isUsageEmpty(usage)) return;
  const put = (name: string, value: number | null): void => {
    if (value !== null) attributes[name] = value;
  };
  put(GEN_AI.inputTokens, usage.inputTokens);
  put(GEN_AI.outputTokens, usage.outputTokens);
  put(GEN_AI.cacheReadTokens, usage.cacheReadTokens);
  put(GEN_AI.cacheCreationTokens, usage.cacheWriteTokens);
  put(GEN_AI.reasoningTokens, usage.reasoningTokens);
}
