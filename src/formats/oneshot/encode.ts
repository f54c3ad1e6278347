// Source of truth: "Unified Streaming JSON Schema Specification" (status PROPOSED, 2026-01-21) of
// jjurach/oneshot (dev_notes/research/2026-01-21_unified_streaming_json_schema.md; read from
// ../shared/seeds/oneshot-unified-streaming-schema.md). Mapping, executor names, timestamps and
// round-trip losses: docs/formats/oneshot.md.
//
// Each line is one "Oneshot Activity" packet {timestamp, ts_ms, executor, oneshot_id, type, data,
// is_heartbeat}. Messages are written whole when they complete (the six types have no delta).
import type { AgentEvent, EventOf, JsonObject, JsonValue, MessageKind, MessageRole, ToolKind } from "../../model/events.ts";
import { createClock } from "../../encoding/clock.ts";
import { eventBody } from "../../encoding/event-body.ts";
import { createDispatch } from "../../encoding/dispatch.ts";
import { createToolInputJoiner } from "../../encoding/tool-input.ts";
import { usageToWire } from "../../encoding/usage.ts";
import type { EncoderOptions, RecordEncoder } from "../../encoding/record-encoder.ts";
import { isJsonObject } from "../../model/lossless-integer.ts";
export type { OneshotPacket } from "./wire.ts";
import type { OneshotPacket, OneshotType } from "./wire.ts";

/**
 * The spec names `claude`, `gemini`, `cline`, `aider` and `direct`; the other agents we read keep
 * their short product name. Harmony is raw model output with no agent CLI, which is what `direct` means.
 */
const EXECUTORS: Record<string, string> = {
  "claude-code": "claude",
  claude: "claude",
  "claude-session": "claude",
  "gemini-cli": "gemini",
  gemini: "gemini",
  "gemini-session": "gemini",
  cline: "cline",
  aider: "aider",
  codex: "codex",
  "codex-session": "codex",
  opencode: "opencode",
  "opencode-session": "opencode",
  "cursor-agent": "cursor",
  cursor: "cursor",
  amp: "amp",
  "qwen-code": "qwen",
  qwen: "qwen",
  "qwen-session": "qwen",
  "copilot-cli": "copilot",
  copilot: "copilot",
  harmony: "direct",
};

/** The oneshot executor for an agent product or dialect name. */
export function oneshotExecutor(agentOrDialect: string | undefined): string {
  if (agentOrDialect === undefined) return "unknown";
  return Object.hasOwn(EXECUTORS, agentOrDialect) ? (EXECUTORS[agentOrDialect] as string) : agentOrDialect;
}

/** The spec's tool vocabulary (`bash|edit|read`) for our tool kinds; other kinds keep the tool's own name. */
function toolCategory(kind: ToolKind | undefined, name: string): string {
  switch (kind) {
    case "command":
      return "bash";
    case "file_edit":
      return "edit";
    case "file_read":
      return "read";
    case "file_write":
      return "write";
    default:
      return name;
  }
}

/** The command line of a shell tool call, when its arguments have one. */
function commandOf(input: JsonValue | undefined): string | undefined {
  if (!isJsonObject(input)) return undefined;
  const command = input.command ?? input.cmd;
  if (typeof command === "string") return command;
  if (Array.isArray(command) && command.every((part) => typeof part === "string")) return command.join(" ");
  return undefined;
}

function defined(fields: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const key in fields) {
    const value = fields[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

interface OpenMessage {
  role: MessageRole;
  kind: MessageKind;
  sessionId: string | undefined;
  parts: string[];
}

/** The streaming encoder for `--to oneshot` (and `run`'s oneshot log, with `options.run`). */
export function createOneshotEncoder(options: EncoderOptions = {}): RecordEncoder<OneshotPacket> {
  const encoder = new OneshotEncoderState(options);
  return {
    encode(event) {
      const out: OneshotPacket[] = [];
      encoder.lastDialect = event.source?.dialect ?? encoder.lastDialect;
      for (const ready of encoder.joiner.push(event)) {
        const ms = encoder.clock.ms(ready.time);
        encoder.note(ready);
        if (ready.type === "text" && ready.position === "preamble" && ready.sessionId === undefined) {
          encoder.heldText.push({ event: ready, ms });
          continue;
        }
        // The reader's pipeline fills a missing session id with the last root session's: the same rule here.
        if (ready.type === "session.started" && ready.parentSessionId === undefined && ready.sessionId !== undefined) {
          encoder.rootSessionId = ready.sessionId;
          encoder.rootAgent = ready.agent ?? encoder.rootAgent;
        }
        // The first event after the preamble names the session for it too.
        encoder.lastSessionId = ready.sessionId ?? encoder.lastSessionId;
        out.push(...encoder.releaseText(), ...encoder.write(ready, ms));
      }
      return out;
    },
    end() {
      const out = encoder.releaseText();
      for (const ready of encoder.joiner.end()) out.push(...encoder.write(ready, encoder.clock.ms(ready.time)));
      // A message that started and never completed still said something: write what streamed, marked incomplete.
      for (const [, open_] of encoder.open) {
        const anchor = {
          v: 1,
          seq: 0,
          type: "heartbeat",
          ...(open_.sessionId === undefined ? {} : { sessionId: open_.sessionId }),
        } as AgentEvent;
        out.push(
          ...encoder.message(
            anchor,
            encoder.clock.ms(undefined),
            open_.role,
            open_.kind,
            open_.parts.join(""),
            defined({ incomplete: true, session_id: encoder.sessionData(open_.sessionId) }),
          ),
        );
      }
      encoder.open.clear();
      out.push(...encoder.runCompletion());
      return out;
    },
  };
}

/** How `run` saw the agent end: its exit notice, and the fatal error of our own that ended it (a timeout). */
interface RunEnd {
  exitCode: number | null;
  signal: string | null;
  error: string | undefined;
}

/** The synthesized completion's `error`: our own fatal error (a timeout, a command not found), else how the agent ended. */
function whyItFailed({ exitCode, signal, error }: RunEnd): string {
  if (error !== undefined) return error;
  if (signal !== null) return `the agent was ended by ${signal}`;
  return exitCode === null ? "the agent did not start" : `the agent exited with code ${exitCode}`;
}

/** What one oneshot writer remembers until the end (the turns, calls and text so far), and its handlers. */
class OneshotEncoderState {
  readonly options: EncoderOptions;
  readonly clock = createClock();
  readonly joiner = createToolInputJoiner();
  readonly open = new Map<string, OpenMessage>();
  readonly toolCategories = new Map<string, string>();
  rootSessionId: string | undefined;
  rootAgent: string | undefined;
  /** The last session id seen, for packets of events that carry none (the preamble, the end). */
  lastSessionId: string | undefined;
  /** The dialect of the last event, for the executor of packets written at the end. */
  lastDialect: string | undefined;
  /** Preamble text waits for the first other event, so its packets carry the session's id and executor. */
  heldText: { event: EventOf<"text">; ms: number }[] = [];

  /** One log is one oneshot session: the executor and id are fixed by the first packet and never change. */
  identity: { executor: string; oneshotId: string } | undefined;
  /** The root session's completion was written (under `run`, one is written at the end otherwise). */
  completed = false;
  /** What `run` said of the agent's end, and the last assistant answer (the synthesized completion's result). */
  runEnd: RunEnd = { exitCode: null, signal: null, error: undefined };
  lastAnswer: string | undefined;
  /** The first and latest times the events carried (the synthesized completion's duration). */
  firstMs: number | undefined;
  lastMs: number | undefined;

  constructor(options: EncoderOptions) {
    this.options = options;
  }

  readonly write = createDispatch<OneshotPacket[], [ms: number]>(
    {
      // The spec's preamble is text before structured activity starts; text between records is not.
      text: (event, ms) =>
        event.position === "preamble" ? this.packet(event, ms, "preamble", event.text) : this.packet(event, ms, "event", eventBody(event)),
      "message.started": (event) => {
        this.open.set(event.messageId, { role: event.role, kind: event.kind, sessionId: event.sessionId, parts: [] });
        return [];
      },
      "message.delta": (event) => {
        this.open.get(event.messageId)?.parts.push(event.text);
        return [];
      },
      "message.completed": (event, ms) => {
        const open = this.open.get(event.messageId);
        this.open.delete(event.messageId);
        // The Map may still reach the entry from a table it replaced until a full collection: emptied, it holds no text there.
        if (open !== undefined) open.parts.length = 0;
        if (event.role === "assistant" && event.kind === "text" && this.sessionData(event.sessionId) === undefined)
          this.lastAnswer = event.text;
        const extra = defined({
          signature: event.signature,
          content_type: event.contentType,
          language: event.language,
          channel: event.channel,
          session_id: this.sessionData(event.sessionId),
        });
        return this.message(event, ms, event.role, event.kind, event.text, extra);
      },
      "tool.started": (event, ms) => {
        const tool = toolCategory(event.kind, event.name);
        this.toolCategories.set(event.toolCallId, tool);
        const data = defined({
          tool,
          command: commandOf(event.input),
          reason: event.description,
          id: event.toolCallId,
          name: event.name,
          kind: event.kind,
          input: event.input,
          server: event.server,
          session_id: this.sessionData(event.sessionId),
        });
        return this.packet(event, ms, "tool_use", data);
      },
      "tool.completed": (event, ms) => {
        // A result with no call (the input lost it, or a library caller sent one) gets its tool_use
        // first, so every tool_output has one; the category is released once the call is done.
        const known = this.toolCategories.get(event.toolCallId);
        this.toolCategories.delete(event.toolCallId);
        const tool = known ?? event.name ?? "unknown";
        const use =
          known !== undefined
            ? []
            : this.packet(
                event,
                ms,
                "tool_use",
                defined({ tool, id: event.toolCallId, name: event.name, session_id: this.sessionData(event.sessionId) }),
              );
        const data = defined({
          tool,
          content: event.output ?? "",
          exit_code: event.exitCode ?? null,
          id: event.toolCallId,
          name: event.name,
          is_error: event.isError,
          duration_ms: event.durationMs,
          result: event.result,
          session_id: this.sessionData(event.sessionId),
        });
        return [...use, ...this.packet(event, ms, "tool_output", data)];
      },
      "session.completed": (event, ms) => this.completion(event, ms),
      heartbeat: (event, ms) => this.packet(event, ms, "heartbeat", defined({ idle_ms: event.idleMs }), true),
      "file.changed": (event, ms) => (this.isAider(event) ? this.aiderOutput(event, ms, "edit") : this.asEvent(event, ms)),
      notice: (event, ms) =>
        event.kind === "commit" && this.isAider(event) ? this.aiderOutput(event, ms, "git") : this.asEvent(event, ms),
    },
    // What the spec's packet types cannot say travels as an `event` packet carrying our event.
    (event, ms) => this.asEvent(event, ms),
  );

  asEvent(event: AgentEvent, ms: number): OneshotPacket[] {
    return this.packet(event, ms, "event", eventBody(event));
  }

  /** The executor of this log (fixed by its first packet), or the one the event would fix. */
  executor(event: AgentEvent): string {
    return this.identity?.executor ?? oneshotExecutor(this.rootAgent ?? event.source?.dialect ?? this.lastDialect);
  }

  isAider(event: AgentEvent): boolean {
    return this.executor(event) === "aider";
  }

  /**
   * The seed's Aider mapping: its git commits and file edits are `tool_output` (no tool call asked for them, so
   * no `tool_use` and no `id`). `data.event` carries our event, so our reader gives back the same event.
   */
  aiderOutput(event: EventOf<"file.changed"> | EventOf<"notice">, ms: number, tool: "edit" | "git"): OneshotPacket[] {
    const failed = event.type === "file.changed" && event.status === "error";
    const content =
      event.type === "notice"
        ? event.text
        : event.changes
            .map((change) => change.diff ?? `${failed ? "Failed to apply edit to" : "Applied edit to"} ${change.path}`)
            .join("\n");
    return this.packet(
      event,
      ms,
      "tool_output",
      defined({ tool, content, exit_code: failed ? 1 : 0, is_error: failed, event: eventBody(event) }),
    );
  }

  /** Notes what a synthesized completion needs: how `run` said the agent ended, and the span of the times. */
  note(event: AgentEvent): void {
    const ms = this.clock.own(event.time);
    if (Number.isFinite(ms)) {
      this.firstMs = this.firstMs === undefined ? ms : Math.min(this.firstMs, ms);
      this.lastMs = this.lastMs === undefined ? ms : Math.max(this.lastMs, ms);
    }
    // Ours (no input line): `run`'s exit notice and the fatal error with which it ended the agent.
    if (event.source?.line !== undefined) return;
    if (event.type === "notice" && event.kind === "exit") {
      const details = event.details ?? {};
      this.runEnd.exitCode = typeof details.exitCode === "number" ? details.exitCode : null;
      this.runEnd.signal = typeof details.signal === "string" ? details.signal : null;
    } else if (event.type === "error" && event.fatal === true) this.runEnd.error = event.message;
  }

  /**
   * Under `run`, a log always ends with a completion: when the agent wrote no end record (Aider never
   * does), one from how it ended (exit code 0: success), marked `synthesized`.
   */
  runCompletion(): OneshotPacket[] {
    if (this.options.run === undefined || this.completed) return [];
    const { exitCode, signal, error } = this.runEnd;
    const success = exitCode === 0 && error === undefined;
    const anchor = { v: 1, seq: 0, type: "heartbeat", ...defined({ sessionId: this.lastSessionId }) } as AgentEvent;
    const duration = this.firstMs === undefined || this.lastMs === undefined ? undefined : this.lastMs - this.firstMs;
    this.completed = true;
    return this.packet(
      anchor,
      this.clock.ms(undefined),
      "completion",
      defined({
        status: success ? "success" : "failure",
        result: this.lastAnswer ?? null,
        error: success ? undefined : whyItFailed(this.runEnd),
        exit_code: exitCode,
        signal: signal ?? undefined,
        stats: defined({ duration_ms: duration }),
        synthesized: true,
      }),
    );
  }

  /** `data.session_id` unless the reader's pipeline would fill in the same id (the current root session's). */
  sessionData(sessionId: string | undefined): string | undefined {
    return sessionId !== undefined && sessionId !== this.rootSessionId ? sessionId : undefined;
  }

  packet(event: AgentEvent, ms: number, type: OneshotType, data: JsonValue, isHeartbeat = false): OneshotPacket[] {
    this.identity ??= {
      executor: this.executor(event),
      // Under run, a stream that names no session (Cline's) is the run's session.
      oneshotId: this.rootSessionId ?? event.sessionId ?? this.lastSessionId ?? this.options.run?.runId ?? "unknown",
    };
    const record: OneshotPacket = {
      timestamp: ms / 1000,
      ts_ms: ms,
      executor: this.identity.executor,
      oneshot_id: this.identity.oneshotId,
      type,
      data,
      is_heartbeat: isHeartbeat,
    };
    // `--include-raw`: the record the event came from (an `unknown` event's is its content, in `data`).
    if (event.raw !== undefined && event.type !== "unknown") record.raw = event.raw;
    return [record];
  }

  message(event: AgentEvent, ms: number, role: MessageRole, kind: MessageKind, text: string, extra: JsonObject): OneshotPacket[] {
    // The seed: Aider's conversational text is a thought; `kind: "text"` tells our reader it was prose, not reasoning.
    if (role === "assistant" && kind === "text" && this.isAider(event))
      return this.packet(event, ms, "thought", { text, kind: "text", ...extra });
    if (role === "assistant" && kind !== "text") {
      return this.packet(event, ms, "thought", { text, ...(kind === "redacted_reasoning" ? { redacted: true } : {}), ...extra });
    }
    return this.packet(event, ms, "message", { role, content: text, ...extra });
  }

  completion(event: EventOf<"session.completed">, ms: number): OneshotPacket[] {
    if (this.sessionData(event.sessionId) === undefined) this.completed = true;
    const stats = defined({
      usage: event.usage === undefined ? undefined : usageToWire(event.usage),
      cost_usd: event.costUsd,
      duration_ms: event.durationMs,
      turns: event.turns,
    });
    return this.packet(
      event,
      ms,
      "completion",
      defined({
        status: event.status === "success" ? "success" : "failure",
        // The spec's status is success|failure; an interruption is a failure that says so.
        interrupted: event.status === "interrupted" ? true : undefined,
        result: event.finalText ?? null,
        error: event.error,
        stats,
        details: event.details,
        session_id: this.sessionData(event.sessionId),
      }),
    );
  }

  releaseText(): OneshotPacket[] {
    const out: OneshotPacket[] = [];
    for (const { event, ms } of this.heldText) out.push(...this.write(event, ms));
    this.heldText = [];
    return out;
  }
}
