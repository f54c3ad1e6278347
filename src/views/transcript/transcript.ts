/**
 * What the two transcript writers for people (`text`, `markdown`) share: cleaning agent text, tool calls whose
 * arguments stream in, and the session facts of the closing footer (folded by the same code as `agentstream summary`,
 * so the footer and `summary --json` never disagree; ../shared/view-model.ts turns them into what is shown).
 */
import type { AgentEvent, EventOf, JsonValue, MessageRole, ToolKind, ToolStartedEvent } from "../../model/events.ts";
import { createDispatch, type EventHandlers } from "../../encoding/dispatch.ts";
import { formatDuration } from "../shared/format.ts";
import type { EventWriter } from "../../encoding/writer.ts";
import { viewMetric } from "../shared/metric.ts";
import { sanitizeForTerminal } from "../shared/sanitize.ts";
import type { FooterDiagnostics } from "../shared/view-model.ts";
import { createSummaryBuilder, type SessionSummary } from "../../summary/summarize.ts";

/** Agent or tool text made safe to print: CRLF becomes LF, every other control character a visible picture (␛, ␍, ␇). */
export function cleanText(text: string): string {
  return sanitizeForTerminal(text.includes("\r\n") ? text.replace(/\r\n/g, "\n") : text);
}

/** A tool call as the transcript shows it. */
export interface TranscriptTool {
  readonly toolCallId: string;
  readonly name: string;
  readonly kind: ToolKind | undefined;
  readonly sessionId: string | undefined;
  input: JsonValue | undefined;
  /** Streamed argument fragments, parsed once when the call is shown. */
  inputText: string[] | undefined;
  /** `tool.progress` output: shown when `tool.completed` carries none. */
  readonly progress: string[];
  shown: boolean;
  done: boolean;
}

/** Tool calls by id; a call whose arguments stream in is shown once they have arrived (at the next other event). */
interface ToolTracker {
  /** Records a call; returns it when it can be shown now, `undefined` while its arguments stream. */
  started(event: ToolStartedEvent): TranscriptTool | undefined;
  /** Adds an argument fragment. */
  inputDelta(toolCallId: string, text: string): void;
  /** Adds progress output. */
  progress(toolCallId: string, output: string): void;
  /** Calls whose arguments have arrived and that are not shown yet, in the order they started. */
  ready(): TranscriptTool[];
  /** The call a `tool.completed` ends (made up from the event when it never started); `undefined` when already done. */
  completed(toolCallId: string, name: string | undefined, sessionId: string | undefined): TranscriptTool | undefined;
  get(toolCallId: string): TranscriptTool | undefined;
}

/** Creates an empty tracker. */
function createToolTracker(): ToolTracker {
  const tools = new Map<string, TranscriptTool>();
  let waiting: TranscriptTool[] = [];
  const show = (tool: TranscriptTool): TranscriptTool => {
    if (tool.inputText !== undefined && tool.input === undefined) tool.input = parseArguments(tool.inputText.join(""));
    tool.inputText = undefined;
    tool.shown = true;
    return tool;
  };
  return {
    started(event) {
      const known = tools.get(event.toolCallId);
      if (known !== undefined) {
        if (!known.shown && known.input === undefined && event.input !== undefined) known.input = event.input;
        return undefined;
      }
      const tool: TranscriptTool = {
        toolCallId: event.toolCallId,
        name: event.name,
        kind: event.kind,
        sessionId: event.sessionId,
        input: event.input,
        inputText: undefined,
        progress: [],
        shown: false,
        done: false,
      };
      tools.set(event.toolCallId, tool);
      if (event.input === undefined) {
        waiting.push(tool);
        return undefined;
      }
      return show(tool);
    },
    inputDelta(toolCallId, text) {
      const tool = tools.get(toolCallId);
      if (tool === undefined || tool.shown) return;
      tool.inputText ??= [];
      tool.inputText.push(text);
    },
    progress(toolCallId, output) {
      const tool = tools.get(toolCallId);
      if (tool !== undefined && !tool.done) tool.progress.push(output);
    },
    ready() {
      if (waiting.length === 0) return [];
      const out = waiting.filter((t) => !t.shown).map(show);
      waiting = [];
      return out;
    },
    completed(toolCallId, name, sessionId) {
      let tool = tools.get(toolCallId);
      if (tool?.done === true) return undefined;
      if (tool === undefined) {
        tool = {
          toolCallId,
          name: name ?? "tool",
          kind: undefined,
          sessionId,
          input: undefined,
          inputText: undefined,
          progress: [],
          shown: true,
          done: false,
        };
        tools.set(toolCallId, tool);
      }
      tool.done = true;
      return tool;
    },
    get: (toolCallId) => tools.get(toolCallId),
  };
}

/** Streamed arguments: JSON when they parse, else the text itself. */
function parseArguments(text: string): JsonValue | undefined {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** The session's facts, folded as `agentstream summary` folds them. */
interface SessionFacts {
  add(event: AgentEvent): void;
  result(): SessionSummary;
  /** What the agents' diagnostic metrics add to the footer (../shared/metric.ts decides which; ../shared/view-model.ts shows them). */
  diagnostics(): FooterDiagnostics;
}

/** Creates the fold behind the footer. */
function createSessionFacts(): SessionFacts {
  const builder = createSummaryBuilder();
  const stats = { total: 0, events: 0, blank: 0, text: 0, invalid: 0, tooLong: 0, tooLongBytes: 0, unknown: 0 };
  let rootId: string | undefined;
  let rootKnown = false;
  let thinkingTokens: number | undefined;
  let turnMs: number | undefined;
  let dialect: string | undefined;
  return {
    add(event) {
      stats.events++;
      dialect ??= event.source?.dialect;
      if (event.type === "unknown") stats.unknown++;
      if (event.type === "session.started" && !rootKnown && event.parentSessionId === undefined && event.parentToolCallId === undefined) {
        rootId = event.sessionId;
        rootKnown = true;
      }
      if (event.type === "metric" && (!rootKnown || event.sessionId === undefined || event.sessionId === rootId)) {
        const view = viewMetric(event, false);
        if (view.thinkingTokens !== undefined) thinkingTokens = view.thinkingTokens;
        if (view.turnMs !== undefined) turnMs = (turnMs ?? 0) + view.turnMs;
      }
      // A line the reader discarded reaches writers only as this notice: count it as the reader did.
      if (event.type === "notice" && event.kind === "record-dropped" && typeof event.details?.bytes === "number") {
        stats.tooLong++;
        stats.tooLongBytes += event.details.bytes;
      }
      builder.add(event);
    },
    result: () => builder.result(stats, dialect),
    diagnostics: () => ({ thinkingTokens, turnMs }),
  };
}

/** Text collected for the caller, handed out (and cleared) once per event. */
interface OutputBuffer {
  push(text: string): void;
  take(): string;
}

function createOutputBuffer(): OutputBuffer {
  let out: string[] = [];
  return {
    push: (text) => void out.push(text),
    take() {
      if (out.length === 0) return "";
      const text = out.join("");
      out = [];
      return text;
    },
  };
}

/**
 * The writer shell both transcripts share: every event is folded into the session facts, tool
 * calls whose arguments are complete are shown before anything else (a streamed argument waits),
 * then the event is handled; `finish` writes the footer, given whether any event came.
 */
function createTranscriptWriter(parts: {
  facts: SessionFacts;
  output: OutputBuffer;
  showReady(): void;
  handle(event: AgentEvent): void;
  finish(seen: boolean): void;
}): EventWriter {
  let seen = false;
  return {
    write(event) {
      seen = true;
      parts.facts.add(event);
      if (event.type !== "tool.input.delta") parts.showReady();
      parts.handle(event);
      return parts.output.take();
    },
    end() {
      parts.showReady();
      parts.finish(seen);
      return parts.output.take();
    },
  };
}

/** How a transcript names who speaks. */
export function roleName(role: MessageRole): string {
  return role === "assistant" ? "Assistant" : role === "user" ? "User" : role === "system" ? "System" : "Developer";
}

/** How a tool call ended, in words: `failed, exit 2, 1.2s`. */
export function resultDetails(event: EventOf<"tool.completed">): string {
  return [
    event.isError ? "failed" : "ok",
    event.exitCode !== undefined ? `exit ${event.exitCode}` : "",
    event.durationMs !== undefined ? formatDuration(event.durationMs) : "",
  ]
    .filter(Boolean)
    .join(", ");
}

/**
 * What the two transcripts share besides the shell: the output, the session facts, the tool calls, which sessions are
 * subagents, and which events are worth a section. Each transcript writes the sections its own way; the table names
 * every event type, so a new type does not compile until both decide what to show for it.
 */
export abstract class TranscriptSections {
  readonly output = createOutputBuffer();
  readonly facts = createSessionFacts();
  readonly tools = createToolTracker();
  readonly children = new Set<string>();
  rootId: string | undefined;

  readonly handle = createDispatch<void>(
    {
      "session.started": (event) => this.onSessionStarted(event),
      "session.completed": (event) => {
        if (this.isChild(event.sessionId)) this.subagentFinished(event);
      },
      "turn.started": ignore,
      "turn.completed": (event) => {
        if (event.status === "error") this.turnFailed(event);
      },
      "message.started": (event) => this.messageStarted(event),
      "message.delta": (event) => this.messageDelta(event),
      "message.completed": (event) => this.messageCompleted(event),
      "tool.started": (event) => {
        const tool = this.tools.started(event);
        if (tool !== undefined) this.showTool(tool);
      },
      "tool.input.delta": (event) => this.tools.inputDelta(event.toolCallId, event.text),
      "tool.progress": (event) => {
        if (event.output !== undefined) this.tools.progress(event.toolCallId, event.output);
      },
      "tool.completed": (event) => this.toolCompleted(event),
      "file.changed": (event) => this.fileChanged(event),
      "plan.updated": (event) => this.plan(event),
      usage: ignore,
      metric: (event) => {
        // Agents' diagnostics go to the footer or, when unusual, say so in words (src/views/shared/metric.ts).
        const view = viewMetric(event, false);
        if (view.line !== undefined) this.metricLine(view.line, view.warning === true);
      },
      // "allowed" is the normal state; warnings and rejections are worth a line.
      rate_limit: (event) => {
        if (event.status !== "allowed") this.rateLimited(event);
      },
      retry: (event) => this.retry(event),
      heartbeat: ignore,
      error: (event) => this.error(event),
      notice: (event) => {
        if (event.level === "warning") this.warning(event.text);
      },
      text: (event) => this.text(event),
      repair: ignore,
      // A record its format says to show as plain text (a Witness type the spec does not list) reads as a text line.
      unknown: (event) => {
        if (event.text !== undefined && event.text !== "") this.text({ ...event, type: "text", text: event.text, position: "interleaved" });
      },
    } satisfies Required<EventHandlers<void>>,
    ignore,
  );

  isChild(sessionId: string | undefined): boolean {
    return sessionId !== undefined && this.children.has(sessionId);
  }

  /** The transcript as a writer of events. */
  writer(): EventWriter {
    return createTranscriptWriter({
      facts: this.facts,
      output: this.output,
      showReady: () => {
        for (const tool of this.tools.ready()) this.showTool(tool);
      },
      handle: this.handle,
      finish: (seen) => this.finish(seen),
    });
  }

  onSessionStarted(event: EventOf<"session.started">): void {
    if (event.parentSessionId !== undefined || event.parentToolCallId !== undefined) {
      if (event.sessionId !== undefined && event.sessionId !== this.rootId) this.children.add(event.sessionId);
      this.subagentStarted(event);
      return;
    }
    this.rootId ??= event.sessionId;
    this.sessionStarted(event);
  }

  abstract sessionStarted(event: EventOf<"session.started">): void;
  abstract subagentStarted(event: EventOf<"session.started">): void;
  abstract subagentFinished(event: EventOf<"session.completed">): void;
  abstract turnFailed(event: EventOf<"turn.completed">): void;
  abstract messageStarted(event: EventOf<"message.started">): void;
  abstract messageDelta(event: EventOf<"message.delta">): void;
  abstract messageCompleted(event: EventOf<"message.completed">): void;
  /** A tool call whose arguments have arrived. */
  abstract showTool(tool: TranscriptTool): void;
  abstract toolCompleted(event: EventOf<"tool.completed">): void;
  abstract fileChanged(event: EventOf<"file.changed">): void;
  abstract plan(event: EventOf<"plan.updated">): void;
  abstract metricLine(line: string, warning: boolean): void;
  abstract rateLimited(event: EventOf<"rate_limit">): void;
  abstract retry(event: EventOf<"retry">): void;
  abstract error(event: EventOf<"error">): void;
  abstract warning(text: string): void;
  abstract text(event: EventOf<"text">): void;
  /** The end of the input: `seen` is whether any event came (an empty input gets no footer). */
  abstract finish(seen: boolean): void;
}

/** Events a transcript does not show (their figures reach the footer through the session facts). */
function ignore(): void {}
