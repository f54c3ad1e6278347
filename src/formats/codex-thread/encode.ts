// Source of truth: "Streaming JSON Output Design" of the Go dev-agent (yaodihuang/Plan_Agent,
// dev_agent/docs/stream-json.md; read from ../shared/seeds/dev-agent-stream-json-design.md): a
// Codex-style `--stream-json` lifecycle. Mapping, redaction, timestamps and round-trip losses:
// docs/formats/codex-thread.md.
//
// Every line is `{type, timestamp, sequence, thread_id, ...}`: RFC 3339 UTC, a sequence that rises
// by one per line, one thread id. `thread.started` is always first and `thread.completed` always
// last, so the root session's completion is held back until nothing else can follow it.
import type { AgentEvent, EventOf, JsonObject, JsonValue, MessageKind, MessageRole, SessionStatus } from "../../model/events.ts";
import { createClock, isoUtc } from "../../encoding/clock.ts";
import { describeEvent } from "../../encoding/describe.ts";
import { eventBody } from "../../encoding/event-body.ts";
import { redactSecrets, redactText } from "../../encoding/redact.ts";
import { createDispatch } from "../../encoding/dispatch.ts";
import { createToolInputJoiner } from "../../encoding/tool-input.ts";
import { usageToWire } from "../../encoding/usage.ts";
import type { EncoderOptions, RecordEncoder } from "../../encoding/record-encoder.ts";

/** Item kinds: the design's `tool_call`, and one per message role and kind (Codex's item vocabulary). */
type CodexThreadItemKind = "tool_call" | "agent_message" | "reasoning" | "user_message" | "system_message" | "developer_message";

/** The longest `summary` of an item: the full text travels in `text` / `output`. */
const SUMMARY_CHARS = 200;

function defined(fields: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

/** The first non-blank line, cut at SUMMARY_CHARS (at a code point boundary); reads only that line's start, however long the text. */
export function shortSummary(text: string | undefined): string {
  if (text === undefined) return "";
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end);
    start = end + 1;
    if (!/\S/.test(line)) continue;
    const trimmed = line.trim();
    // Two UTF-16 units per code point at most: this head holds every code point the summary can keep.
    const points = Array.from(trimmed.slice(0, SUMMARY_CHARS * 2 + 2));
    if (points.length <= SUMMARY_CHARS && trimmed.length <= SUMMARY_CHARS * 2 + 2) return trimmed;
    return `${points.slice(0, SUMMARY_CHARS - 1).join("")}…`;
  }
  return "";
}

function messageKind(role: MessageRole, kind: MessageKind): CodexThreadItemKind {
  if (role === "assistant") return kind === "text" ? "agent_message" : "reasoning";
  return role === "user" ? "user_message" : role === "system" ? "system_message" : "developer_message";
}

function threadStatus(status: SessionStatus): string {
  return status === "success" ? "completed" : status === "error" ? "failed" : "interrupted";
}

function basename(path: string | undefined): string | null {
  if (path === undefined) return null;
  const parts = path.split(/[\\/]+/).filter((p) => p !== "");
  return parts[parts.length - 1] ?? null;
}

/** Events that often come before the session says who it is (stderr banners, hook notices): held so `thread.started` can name it. */
const PRELUDE_TYPES = new Set<AgentEvent["type"]>(["text", "notice"]);

/** The streaming writer for `--to codex-thread`. */
export function createCodexThreadEncoder(options: EncoderOptions = {}): RecordEncoder<JsonObject> {
  const encoder = new CodexThreadEncoderState(options);
  return {
    encode(event) {
      const out: JsonObject[] = [];
      for (const ready of encoder.joiner.push(event)) {
        encoder.noteTime(ready.time, ready.source?.line);
        if (encoder.threadId === undefined) {
          if (PRELUDE_TYPES.has(ready.type)) {
            encoder.prelude.push(ready);
            continue;
          }
          out.push(...encoder.start(ready));
          continue;
        }
        out.push(...encoder.emit(ready, encoder.clock.ms(ready.time)));
      }
      return out;
    },
    end() {
      const out: JsonObject[] = [];
      if (encoder.threadId === undefined) out.push(...encoder.start(undefined));
      for (const ready of encoder.joiner.end()) {
        encoder.noteTime(ready.time, ready.source?.line);
        out.push(...encoder.emit(ready, encoder.clock.ms(ready.time)));
      }
      // Items the input never closed: closed as incomplete, so every item.started has its item.completed.
      const ms = encoder.clock.ms(undefined);
      for (const [id, item] of encoder.openItems) {
        const fields = {
          item_id: id,
          kind: item.kind,
          name: item.name,
          status: "incomplete",
          duration_ms: null,
          summary: "the input ended before the item completed",
        };
        const content = item.kind === "tool_call" ? { output: null } : { text: item.parts?.join("") ?? "" };
        out.push(
          ...encoder.line("item.completed", ms, {
            ...fields,
            ...content,
            ...defined({ session_id: encoder.sessionField(item.sessionId) }),
          }),
        );
      }
      encoder.openItems.clear();
      out.push(...encoder.threadCompleted(encoder.heldCompletion?.event, encoder.heldCompletion?.ms ?? encoder.clock.ms(undefined)));
      return out;
    },
    // `--final-summary`: the thread's report, printed pretty after the stream.
    trailer: () => (encoder.options.finalSummary === true ? encoder.finalReport(encoder.heldCompletion?.event) : undefined),
  };
}

/** What one codex-thread writer remembers (thread, turns, items), and its handlers. */
class CodexThreadEncoderState {
  readonly options: EncoderOptions;
  readonly clock = createClock();
  readonly joiner = createToolInputJoiner();
  sequence = 0;
  threadId: string | undefined;
  /** The session the thread is (the first session.started); its completion is the thread's. */
  threadSession: string | undefined;
  /** Text and notices seen before the thread could start. */
  prelude: AgentEvent[] = [];
  /** The thread's completion, held until the end. */
  heldCompletion: { event: EventOf<"session.completed">; ms: number } | undefined;
  rootSessionId: string | undefined;
  /** `run`'s task (redacted), else the first thing the user said in the thread's session once said. */
  task: string | null;
  readonly openItems = new Map<
    string,
    {
      kind: CodexThreadItemKind;
      name: string;
      parts: string[] | undefined;
      sessionId: string | undefined;
      /** The start's own time in ms, for `duration_ms` (undefined when the event had none), and its input line. */
      startedAt: number | undefined;
      startedLine: number | undefined;
    }
  >();
  /** The time of the event being written (its own, never carried forward), in ms, and its input line. */
  eventTime: number | undefined;
  eventLine: number | undefined;
  /** The first and the latest time the events carried: the thread's span (`final_report.duration_ms`). */
  firstTime: number | undefined;
  lastTime: number | undefined;
  /** Messages and tool results of the thread's session so far (`turn.started.message_count`). */
  conversation = 0;
  sawUserMessage = false;
  /** The thread's current turn has answered in text with no tool call after it (`turn.completed.has_final_report`). */
  turnAnswered = false;
  readonly turns = new Map<string, { iteration: number; toolsAtStart: number }>();
  iterations = 0;
  toolsStarted = 0;
  currentIteration: number | undefined;
  /** How many tools the thread's session offers the model (the design's "tool_count (planned)"). */
  toolCount: number | null = null;

  readonly write: (event: AgentEvent, ms: number) => JsonObject[] = createDispatch<JsonObject[], [ms: number]>(
    {
      "session.started": (event, ms) => {
        if (event.parentSessionId === undefined && event.sessionId !== undefined) this.rootSessionId = event.sessionId;
        return this.log(event, ms);
      },
      "turn.started": (event, ms) => {
        this.iterations++;
        this.currentIteration = this.iterations;
        this.turns.set(event.turnId, { iteration: this.iterations, toolsAtStart: this.toolsStarted });
        const ours = this.inThread(event.sessionId);
        if (ours) this.turnAnswered = false;
        return this.line(
          "turn.started",
          ms,
          defined({
            turn_id: event.turnId,
            iteration: this.iterations,
            // The task counts as the first message even where the stream does not echo it (Claude's -p prompt).
            message_count: ours ? this.conversation + (this.sawUserMessage ? 0 : 1) : null,
            tool_count: this.toolCount,
            session_id: this.sessionField(event.sessionId),
          }),
        );
      },
      "turn.completed": (event, ms) => {
        // A turn that ends without having started (lost, or a library caller's order) is started
        // first, so the run stays well-formed.
        const start: EventOf<"turn.started"> = {
          v: event.v,
          seq: event.seq,
          type: "turn.started",
          turnId: event.turnId,
          ...defined({ sessionId: event.sessionId }),
        };
        const before = this.turns.has(event.turnId) ? [] : this.write(start, ms);
        const turn = this.turns.get(event.turnId);
        this.turns.delete(event.turnId);
        const fields = defined({
          turn_id: event.turnId,
          iteration: turn?.iteration ?? null,
          tool_call_count: turn === undefined ? null : this.toolsStarted - turn.toolsAtStart,
          has_final_report: this.inThread(event.sessionId) ? this.turnAnswered : null,
          status: event.status,
          error: event.error,
          usage: event.usage === undefined ? undefined : usageToWire(event.usage),
          cost_usd: event.costUsd,
          session_id: this.sessionField(event.sessionId),
        });
        return [...before, ...this.line("turn.completed", ms, fields)];
      },
      "message.started": (event, ms) => {
        // An item id is open once: a repeated start (or a tool call under the same id) is told as a log line.
        if (this.openItems.has(event.messageId)) return this.log(event, ms);
        return this.itemStarted(event.messageId, messageKind(event.role, event.kind), event.role, null, {}, event.sessionId, ms, []);
      },
      "message.delta": (event) => {
        this.openItems.get(event.messageId)?.parts?.push(event.text);
        return [];
      },
      "message.completed": (event, ms) => {
        if (this.openItems.get(event.messageId)?.kind === "tool_call") return this.log(event, ms);
        // The task is what the user asked first; known only once said, so it appears in final_report.
        if (event.role === "user" && this.task === null && event.sessionId === this.threadSession) this.task = redactText(event.text);
        return this.message(event, ms);
      },
      "tool.started": (event, ms) => {
        if (this.openItems.has(event.toolCallId)) return this.log(event, ms);
        this.toolsStarted++;
        if (this.inThread(event.sessionId)) this.turnAnswered = false;
        // The design: "args must be safe to log (omit secrets; redact GitHub token)".
        const args = event.input === undefined ? null : redactSecrets(event.input);
        return this.itemStarted(
          event.toolCallId,
          "tool_call",
          event.name,
          args,
          defined({ tool_kind: event.kind, server: event.server, description: event.description }),
          event.sessionId,
          ms,
        );
      },
      "tool.completed": (event, ms) => {
        const open = this.openItems.get(event.toolCallId);
        if (open !== undefined && open.kind !== "tool_call") return this.log(event, ms);
        return this.toolCompleted(event, ms);
      },
      error: (event, ms) => {
        const fields = defined({
          scope: event.scope,
          message: event.message,
          iteration: this.currentIteration,
          item_id: event.toolCallId,
          code: event.code,
          fatal: event.fatal,
          turn_id: event.turnId,
          session_id: this.sessionField(event.sessionId),
        });
        return this.line("error", ms, fields);
      },
    },
    // Everything else is told as a log line carrying our event.
    (event, ms) => this.log(event, ms),
  );

  constructor(options: EncoderOptions = {}) {
    this.options = options;
    this.task = options.run?.task === undefined ? null : redactText(options.run.task);
  }

  /** Whether an event belongs to the thread's own session (a subagent's turns and items count apart). */
  inThread(sessionId: string | undefined): boolean {
    return sessionId === undefined || sessionId === this.threadSession;
  }

  /** Notes an event's own time (never a carried-forward one) for durations and the thread's span. */
  noteTime(time: string | undefined, line: number | undefined): void {
    this.eventLine = line;
    const ms = time === undefined ? Number.NaN : Date.parse(time);
    this.eventTime = Number.isFinite(ms) ? ms : undefined;
    if (this.eventTime === undefined) return;
    this.firstTime = this.firstTime === undefined ? this.eventTime : Math.min(this.firstTime, this.eventTime);
    this.lastTime = this.lastTime === undefined ? this.eventTime : Math.max(this.lastTime, this.eventTime);
  }

  /**
   * Under `run`: from an item's start to the event being written, when both had a time of their own. Not for
   * `convert`: a saved stream's times say when records were written, and the reader would take the
   * difference for the agent's own figure.
   */
  elapsed(item: { startedAt: number | undefined; startedLine: number | undefined } | undefined): number | null {
    if (this.options.run === undefined || item?.startedAt === undefined || this.eventTime === undefined) return null;
    // Started and completed by one record (a whole message the decoder opened and closed): no duration seen.
    if (item.startedLine !== undefined && item.startedLine === this.eventLine) return null;
    return Math.max(0, this.eventTime - item.startedAt);
  }

  /** Under `run`: what the agent did not report but the run saw (its span, the turns it started). */
  runFacts(): { duration_ms: number | null; turns: number | null } {
    const span = this.firstTime === undefined || this.lastTime === undefined ? null : this.lastTime - this.firstTime;
    return this.options.run === undefined
      ? { duration_ms: null, turns: null }
      : { duration_ms: span, turns: this.iterations > 0 ? this.iterations : null };
  }

  /** `null`, or `true` under `run`, whose stdout is the stream (no view): the design's headless mode. */
  headless(): boolean | null {
    return this.options.run === undefined ? null : true;
  }

  line(type: string, ms: number, fields: JsonObject): JsonObject[] {
    const record = { type, timestamp: isoUtc(ms), sequence: this.sequence++, thread_id: this.threadId ?? "unknown", ...fields };
    return [record];
  }

  /** `session_id` on records of another session than the reader's pipeline would fill in (the current root's). */
  sessionField(sessionId: string | undefined): string | undefined {
    return sessionId !== undefined && sessionId !== this.rootSessionId ? sessionId : undefined;
  }

  log(event: AgentEvent, ms: number): JsonObject[] {
    const warning =
      event.type === "unknown" ||
      event.type === "retry" ||
      (event.type === "notice" && event.level === "warning") ||
      (event.type === "rate_limit" && event.status === "rejected");
    return this.line("log", ms, {
      level: warning ? "warning" : "info",
      message: shortSummary(describeEvent(event)),
      event: eventBody(event),
    });
  }

  threadStarted(event: EventOf<"session.started"> | undefined, ms: number, sessionId: string | undefined): JsonObject[] {
    this.threadId = event?.sessionId ?? sessionId ?? this.options.run?.runId ?? "unknown";
    this.threadSession = event?.sessionId ?? sessionId;
    this.toolCount = event?.tools?.length ?? null;
    if (event === undefined) {
      return this.line("thread.started", ms, {
        task: this.task,
        project_name: null,
        parent_branch_id: null,
        headless: this.headless(),
        synthesized: true,
      });
    }
    return this.line(
      "thread.started",
      ms,
      defined({
        task: this.task,
        project_name: basename(event.cwd),
        parent_branch_id: null,
        headless: this.headless(),
        // thread_id is this session's id; session_id appears only for a synthesized thread (never) or an odd id.
        session_id: event.sessionId === this.threadId ? undefined : event.sessionId,
        agent: event.agent,
        agent_version: event.agentVersion,
        model: event.model,
        cwd: event.cwd,
        tools: event.tools === undefined ? undefined : [...event.tools],
        parent_session_id: event.parentSessionId,
        parent_tool_call_id: event.parentToolCallId,
        permission_mode: event.permissionMode,
        details: event.details,
      }),
    );
  }

  itemStarted(
    id: string,
    kind: CodexThreadItemKind,
    name: string,
    args: JsonValue | null,
    extra: JsonObject,
    sessionId: string | undefined,
    ms: number,
    parts?: string[],
  ): JsonObject[] {
    this.openItems.set(id, { kind, name, parts, sessionId, startedAt: this.eventTime, startedLine: this.eventLine });
    return this.line("item.started", ms, {
      item_id: id,
      kind,
      name,
      args,
      ...extra,
      ...defined({ session_id: this.sessionField(sessionId) }),
    });
  }

  message(event: EventOf<"message.completed">, ms: number): JsonObject[] {
    const kind = messageKind(event.role, event.kind);
    const open = this.openItems.get(event.messageId);
    if (this.inThread(event.sessionId) && event.kind === "text") {
      this.conversation++;
      if (event.role === "user") this.sawUserMessage = true;
      if (event.role === "assistant") this.turnAnswered = true;
    }
    const out = open !== undefined ? [] : this.itemStarted(event.messageId, kind, event.role, null, {}, event.sessionId, ms);
    this.openItems.delete(event.messageId);
    out.push(
      ...this.line(
        "item.completed",
        ms,
        defined({
          item_id: event.messageId,
          kind,
          name: event.role,
          status: "success",
          // A whole message with no start of its own (Codex's) has no known duration.
          duration_ms: this.elapsed(open),
          summary: shortSummary(event.text),
          text: event.text,
          redacted: event.kind === "redacted_reasoning" ? true : undefined,
          signature: event.signature,
          content_type: event.contentType,
          language: event.language,
          channel: event.channel,
          session_id: this.sessionField(event.sessionId),
        }),
      ),
    );
    return out;
  }

  toolCompleted(event: EventOf<"tool.completed">, ms: number): JsonObject[] {
    const open = this.openItems.get(event.toolCallId);
    const name = event.name ?? open?.name ?? "unknown";
    // A result whose call never started (a cut stream): start the item so the pair stays whole.
    const out = open?.kind === "tool_call" ? [] : this.itemStarted(event.toolCallId, "tool_call", name, null, {}, event.sessionId, ms);
    this.openItems.delete(event.toolCallId);
    if (this.inThread(event.sessionId)) this.conversation++;
    out.push(
      ...this.line(
        "item.completed",
        ms,
        defined({
          item_id: event.toolCallId,
          kind: "tool_call",
          name,
          status: event.isError ? "error" : "success",
          duration_ms: event.durationMs ?? this.elapsed(open?.kind === "tool_call" ? open : undefined),
          summary:
            event.output === undefined || event.output.trim() === ""
              ? event.exitCode === undefined
                ? ""
                : `exit ${event.exitCode}`
              : shortSummary(event.output),
          // null, not absent, so a reader knows the summary is not the output.
          output: event.output ?? null,
          exit_code: event.exitCode,
          result: event.result,
          session_id: this.sessionField(event.sessionId),
        }),
      ),
    );
    return out;
  }

  finalReport(event: EventOf<"session.completed"> | undefined): JsonObject {
    return {
      task: this.task,
      status: event === undefined ? "incomplete" : threadStatus(event.status),
      final_text: event?.finalText ?? null,
      error: event?.error ?? null,
      usage: event?.usage === undefined ? null : usageToWire(event.usage),
      cost_usd: event?.costUsd ?? null,
      duration_ms: event?.durationMs ?? this.runFacts().duration_ms,
      turns: event?.turns ?? this.runFacts().turns,
      details: event?.details ?? null,
    };
  }

  threadCompleted(event: EventOf<"session.completed"> | undefined, ms: number): JsonObject[] {
    const summary =
      event === undefined
        ? "The input ended before the session completed."
        : event.status === "success"
          ? "Session completed successfully."
          : `Session ${threadStatus(event.status)}${event.error === undefined ? "." : `: ${shortSummary(event.error)}`}`;
    return this.line("thread.completed", ms, {
      status: event === undefined ? "incomplete" : threadStatus(event.status),
      summary,
      final_report: this.finalReport(event),
      ...defined({ session_id: this.sessionField(event?.sessionId) }),
    });
  }

  /**
   * Writes an event once the thread has started. The thread's completion is held back (it must be
   * the last line); what comes after it is written at once, since it still precedes thread.completed.
   */
  emit(event: AgentEvent, ms: number): JsonObject[] {
    if (event.type === "session.completed" && event.sessionId === this.threadSession) {
      // The thread completes again (Claude's background agents): the earlier completion becomes a log line here.
      const previous = this.heldCompletion;
      this.heldCompletion = { event, ms };
      return previous === undefined ? [] : this.log(previous.event, previous.ms);
    }
    return this.write(event, ms);
  }

  start(first: AgentEvent | undefined): JsonObject[] {
    const ms = this.clock.ms(first?.time);
    const sessionStart = first?.type === "session.started" ? first : undefined;
    if (sessionStart !== undefined && sessionStart.parentSessionId === undefined && sessionStart.sessionId !== undefined)
      this.rootSessionId = sessionStart.sessionId;
    const sessionId = first?.sessionId ?? this.prelude.find((e) => e.sessionId !== undefined)?.sessionId;
    const out = this.threadStarted(sessionStart, ms, sessionId);
    for (const held of this.prelude) out.push(...this.emit(held, this.clock.ms(held.time)));
    this.prelude = [];
    if (first !== undefined && sessionStart === undefined) out.push(...this.emit(first, ms));
    return out;
  }
}
