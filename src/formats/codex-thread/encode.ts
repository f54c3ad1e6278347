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
  const clock = createClock();
  const joiner = createToolInputJoiner();
  let sequence = 0;
  let threadId: string | undefined;
  /** The session the thread is (the first session.started); its completion is the thread's. */
  let threadSession: string | undefined;
  /** Text and notices seen before the thread could start. */
  let prelude: AgentEvent[] = [];
  /** The thread's completion, held until the end. */
  let heldCompletion: { event: EventOf<"session.completed">; ms: number } | undefined;
  let rootSessionId: string | undefined;
  let task: string | null = null;
  const openItems = new Map<
    string,
    { kind: CodexThreadItemKind; name: string; parts: string[] | undefined; sessionId: string | undefined }
  >();
  const turns = new Map<string, { iteration: number; toolsAtStart: number }>();
  let iterations = 0;
  let toolsStarted = 0;
  let currentIteration: number | undefined;
  /** How many tools the thread's session offers the model (the design's "tool_count (planned)"). */
  let toolCount: number | null = null;

  const line = (type: string, ms: number, fields: JsonObject): JsonObject[] => {
    const record = { type, timestamp: isoUtc(ms), sequence: sequence++, thread_id: threadId ?? "unknown", ...fields };
    return [record];
  };

  /** `session_id` on records of another session than the reader's pipeline would fill in (the current root's). */
  const sessionField = (sessionId: string | undefined): string | undefined =>
    sessionId !== undefined && sessionId !== rootSessionId ? sessionId : undefined;

  const log = (event: AgentEvent, ms: number): JsonObject[] => {
    const warning =
      event.type === "unknown" ||
      event.type === "retry" ||
      (event.type === "notice" && event.level === "warning") ||
      (event.type === "rate_limit" && event.status === "rejected");
    return line("log", ms, { level: warning ? "warning" : "info", message: shortSummary(describeEvent(event)), event: eventBody(event) });
  };

  const threadStarted = (event: EventOf<"session.started"> | undefined, ms: number, sessionId: string | undefined): JsonObject[] => {
    threadId = event?.sessionId ?? sessionId ?? "unknown";
    threadSession = event?.sessionId ?? sessionId;
    toolCount = event?.tools?.length ?? null;
    if (event === undefined) {
      return line("thread.started", ms, { task: null, project_name: null, parent_branch_id: null, headless: null, synthesized: true });
    }
    return line(
      "thread.started",
      ms,
      defined({
        task,
        project_name: basename(event.cwd),
        parent_branch_id: null,
        headless: null,
        // thread_id is this session's id; session_id appears only for a synthesized thread (never) or an odd id.
        session_id: event.sessionId === threadId ? undefined : event.sessionId,
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
  };

  const itemStarted = (
    id: string,
    kind: CodexThreadItemKind,
    name: string,
    args: JsonValue | null,
    extra: JsonObject,
    sessionId: string | undefined,
    ms: number,
    parts?: string[],
  ): JsonObject[] => {
    openItems.set(id, { kind, name, parts, sessionId });
    return line("item.started", ms, { item_id: id, kind, name, args, ...extra, ...defined({ session_id: sessionField(sessionId) }) });
  };

  const message = (event: EventOf<"message.completed">, ms: number): JsonObject[] => {
    const kind = messageKind(event.role, event.kind);
    const out = openItems.has(event.messageId) ? [] : itemStarted(event.messageId, kind, event.role, null, {}, event.sessionId, ms);
    openItems.delete(event.messageId);
    out.push(
      ...line(
        "item.completed",
        ms,
        defined({
          item_id: event.messageId,
          kind,
          name: event.role,
          status: "success",
          duration_ms: null,
          summary: shortSummary(event.text),
          text: event.text,
          redacted: event.kind === "redacted_reasoning" ? true : undefined,
          signature: event.signature,
          content_type: event.contentType,
          language: event.language,
          channel: event.channel,
          session_id: sessionField(event.sessionId),
        }),
      ),
    );
    return out;
  };

  const toolCompleted = (event: EventOf<"tool.completed">, ms: number): JsonObject[] => {
    const open = openItems.get(event.toolCallId);
    const name = event.name ?? open?.name ?? "unknown";
    // A result whose call never started (a cut stream): start the item so the pair stays whole.
    const out = open?.kind === "tool_call" ? [] : itemStarted(event.toolCallId, "tool_call", name, null, {}, event.sessionId, ms);
    openItems.delete(event.toolCallId);
    out.push(
      ...line(
        "item.completed",
        ms,
        defined({
          item_id: event.toolCallId,
          kind: "tool_call",
          name,
          status: event.isError ? "error" : "success",
          duration_ms: event.durationMs ?? null,
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
          session_id: sessionField(event.sessionId),
        }),
      ),
    );
    return out;
  };

  const finalReport = (event: EventOf<"session.completed"> | undefined): JsonObject => ({
    task,
    status: event === undefined ? "incomplete" : threadStatus(event.status),
    final_text: event?.finalText ?? null,
    error: event?.error ?? null,
    usage: event?.usage === undefined ? null : usageToWire(event.usage),
    cost_usd: event?.costUsd ?? null,
    duration_ms: event?.durationMs ?? null,
    turns: event?.turns ?? null,
    details: event?.details ?? null,
  });

  const threadCompleted = (event: EventOf<"session.completed"> | undefined, ms: number): JsonObject[] => {
    const summary =
      event === undefined
        ? "The input ended before the session completed."
        : event.status === "success"
          ? "Session completed successfully."
          : `Session ${threadStatus(event.status)}${event.error === undefined ? "." : `: ${shortSummary(event.error)}`}`;
    return line("thread.completed", ms, {
      status: event === undefined ? "incomplete" : threadStatus(event.status),
      summary,
      final_report: finalReport(event),
      ...defined({ session_id: sessionField(event?.sessionId) }),
    });
  };

  const write: (event: AgentEvent, ms: number) => JsonObject[] = createDispatch<JsonObject[], [ms: number]>(
    {
      "session.started": (event, ms) => {
        if (event.parentSessionId === undefined && event.sessionId !== undefined) rootSessionId = event.sessionId;
        return log(event, ms);
      },
      "turn.started": (event, ms) => {
        iterations++;
        currentIteration = iterations;
        turns.set(event.turnId, { iteration: iterations, toolsAtStart: toolsStarted });
        return line(
          "turn.started",
          ms,
          defined({
            turn_id: event.turnId,
            iteration: iterations,
            message_count: null,
            tool_count: toolCount,
            session_id: sessionField(event.sessionId),
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
        const before = turns.has(event.turnId) ? [] : write(start, ms);
        const turn = turns.get(event.turnId);
        turns.delete(event.turnId);
        const fields = defined({
          turn_id: event.turnId,
          iteration: turn?.iteration ?? null,
          tool_call_count: turn === undefined ? null : toolsStarted - turn.toolsAtStart,
          has_final_report: null,
          status: event.status,
          error: event.error,
          usage: event.usage === undefined ? undefined : usageToWire(event.usage),
          cost_usd: event.costUsd,
          session_id: sessionField(event.sessionId),
        });
        return [...before, ...line("turn.completed", ms, fields)];
      },
      "message.started": (event, ms) => {
        // An item id is open once: a repeated start (or a tool call under the same id) is told as a log line.
        if (openItems.has(event.messageId)) return log(event, ms);
        return itemStarted(event.messageId, messageKind(event.role, event.kind), event.role, null, {}, event.sessionId, ms, []);
      },
      "message.delta": (event) => {
        openItems.get(event.messageId)?.parts?.push(event.text);
        return [];
      },
      "message.completed": (event, ms) => {
        if (openItems.get(event.messageId)?.kind === "tool_call") return log(event, ms);
        // The task is what the user asked first; known only once said, so it appears in final_report.
        if (event.role === "user" && task === null && event.sessionId === threadSession) task = redactText(event.text);
        return message(event, ms);
      },
      "tool.started": (event, ms) => {
        if (openItems.has(event.toolCallId)) return log(event, ms);
        toolsStarted++;
        // The design: "args must be safe to log (omit secrets; redact GitHub token)".
        const args = event.input === undefined ? null : redactSecrets(event.input);
        return itemStarted(
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
        const open = openItems.get(event.toolCallId);
        if (open !== undefined && open.kind !== "tool_call") return log(event, ms);
        return toolCompleted(event, ms);
      },
      error: (event, ms) => {
        const fields = defined({
          scope: event.scope,
          message: event.message,
          iteration: currentIteration,
          item_id: event.toolCallId,
          code: event.code,
          fatal: event.fatal,
          turn_id: event.turnId,
          session_id: sessionField(event.sessionId),
        });
        return line("error", ms, fields);
      },
    },
    // Everything else is told as a log line carrying our event.
    (event, ms) => log(event, ms),
  );

  /**
   * Writes an event once the thread has started. The thread's completion is held back (it must be
   * the last line); what comes after it is written at once, since it still precedes thread.completed.
   */
  const emit = (event: AgentEvent, ms: number): JsonObject[] => {
    if (event.type === "session.completed" && event.sessionId === threadSession) {
      // The thread completes again (Claude's background agents): the earlier completion becomes a log line here.
      const previous = heldCompletion;
      heldCompletion = { event, ms };
      return previous === undefined ? [] : log(previous.event, previous.ms);
    }
    return write(event, ms);
  };

  const start = (first: AgentEvent | undefined): JsonObject[] => {
    const ms = clock.ms(first?.time);
    const sessionStart = first?.type === "session.started" ? first : undefined;
    if (sessionStart !== undefined && sessionStart.parentSessionId === undefined && sessionStart.sessionId !== undefined)
      rootSessionId = sessionStart.sessionId;
    const sessionId = first?.sessionId ?? prelude.find((e) => e.sessionId !== undefined)?.sessionId;
    const out = threadStarted(sessionStart, ms, sessionId);
    for (const held of prelude) out.push(...emit(held, clock.ms(held.time)));
    prelude = [];
    if (first !== undefined && sessionStart === undefined) out.push(...emit(first, ms));
    return out;
  };

  return {
    encode(event) {
      const out: JsonObject[] = [];
      for (const ready of joiner.push(event)) {
        if (threadId === undefined) {
          if (PRELUDE_TYPES.has(ready.type)) {
            prelude.push(ready);
            continue;
          }
          out.push(...start(ready));
          continue;
        }
        out.push(...emit(ready, clock.ms(ready.time)));
      }
      return out;
    },
    end() {
      const out: JsonObject[] = [];
      if (threadId === undefined) out.push(...start(undefined));
      for (const ready of joiner.end()) out.push(...emit(ready, clock.ms(ready.time)));
      // Items the input never closed: closed as incomplete, so every item.started has its item.completed.
      const ms = clock.ms(undefined);
      for (const [id, item] of openItems) {
        const fields = {
          item_id: id,
          kind: item.kind,
          name: item.name,
          status: "incomplete",
          duration_ms: null,
          summary: "the input ended before the item completed",
        };
        const content = item.kind === "tool_call" ? { output: null } : { text: item.parts?.join("") ?? "" };
        out.push(...line("item.completed", ms, { ...fields, ...content, ...defined({ session_id: sessionField(item.sessionId) }) }));
      }
      openItems.clear();
      out.push(...threadCompleted(heldCompletion?.event, heldCompletion?.ms ?? clock.ms(undefined)));
      return out;
    },
    // `--final-summary`: the thread's report, printed pretty after the stream.
    trailer: () => (options.finalSummary === true ? finalReport(heldCompletion?.event) : undefined),
  };
}
