// Source: the dev-agent "Streaming JSON Output Design" (yaodihuang/Plan_Agent,
// dev_agent/docs/stream-json.md), and what `convert --to codex-thread` writes; docs/dialects/codex-thread.md.
import type { AgentEventDraft, ErrorScope, JsonObject, MessageKind, MessageRole, SessionStatus, ToolKind } from "../../model/events.ts";
import { CODEX_THREAD_TYPES } from "./spec.ts";
import { writtenTime } from "../../dialect/time.ts";
import { type DecodeContext, type Dialect, jsonRecordDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { compact } from "../../dialect/json.ts";
import { field, fieldArr, fieldBool, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import type { CodexThreadFields } from "./wire.ts";
import { embeddedEvent, replayEmbedded } from "../../dialect/embedded.ts";
import { StreamStateReader } from "../../dialect/messages.ts";
import { usageFromWire } from "../../dialect/usage-wire.ts";

const TYPES = new Set<string>(CODEX_THREAD_TYPES);
/** Message item kinds → role and kind. */
const MESSAGE_KINDS: Record<string, { role: MessageRole; kind: MessageKind }> = {
  agent_message: { role: "assistant", kind: "text" },
  reasoning: { role: "assistant", kind: "reasoning" },
  user_message: { role: "user", kind: "text" },
  system_message: { role: "system", kind: "text" },
  developer_message: { role: "developer", kind: "text" },
};
/** The design's error scopes ("LLM failure, MCP failure, publish failure") and ours. */
const SCOPES: Record<string, ErrorScope> = {
  session: "session",
  turn: "turn",
  tool: "tool",
  api: "api",
  stream: "stream",
  llm: "api",
  model: "api",
  mcp: "tool",
  publish: "tool",
  item: "tool",
};
const TOOL_KINDS = new Set<string>([
  "command",
  "file_read",
  "file_write",
  "file_edit",
  "search",
  "web_search",
  "web_fetch",
  "mcp",
  "subagent",
  "todo",
  "other",
]);

/** A codex-thread line has a known type, a numeric `sequence` and a `thread_id`; real Codex `exec --json` lines have no sequence. */
function detect(record: Parameters<Dialect["detect"]>[0]): boolean {
  if (record.kind !== "json") return false;
  const v = record.value;
  return (
    typeof v.type === "string" &&
    TYPES.has(v.type) &&
    typeof v.sequence === "number" &&
    typeof v.thread_id === "string" &&
    typeof v.timestamp === "string"
  );
}

function sessionStatus(status: string | undefined): SessionStatus {
  if (status === "completed" || status === "success") return "success";
  return status === "interrupted" ? "interrupted" : "error";
}

function basename(path: string | undefined): string | undefined {
  return path
    ?.split(/[\\/]+/)
    .filter((p) => p !== "")
    .pop();
}

/** Codex-style --stream-json (dev-agent design). */
export const codexThread: Dialect = {
  name: "codex-thread",
  description: "Codex-style --stream-json lifecycle (dev-agent design: thread/turn/item)",
  detect,
  createDecoder: () => jsonRecordDecoder(new CodexThreadDecoderState()),
};

/** What one codex-thread reader remembers, and its handlers. */
class CodexThreadDecoderState extends StreamStateReader {
  lastPublish: string | undefined;

  threadStarted(v: Wire<CodexThreadFields>, time: string | undefined): AgentEventDraft[] {
    if (fieldBool(v, "synthesized") === true) return [];
    const cwd = fieldStr(v, "cwd");
    const threadId = fieldStr(v, "thread_id");
    // The design's own fields go to details unless our writer derived them (project_name from cwd).
    const project = fieldStr(v, "project_name");
    const design = compact({
      task: fieldStr(v, "task"),
      project_name: project !== undefined && project !== basename(cwd) ? project : undefined,
      parent_branch_id: fieldStr(v, "parent_branch_id"),
      headless: fieldBool(v, "headless"),
    });
    const details = { ...(fieldObj(v, "details") ?? {}), ...design };
    const tools = fieldArr(v, "tools")?.filter((t): t is string => typeof t === "string");
    return [
      compact({
        type: "session.started" as const,
        sessionId: fieldStr(v, "session_id") ?? (threadId === "unknown" ? undefined : threadId),
        agent: fieldStr(v, "agent"),
        agentVersion: fieldStr(v, "agent_version"),
        model: fieldStr(v, "model"),
        cwd,
        tools,
        parentSessionId: fieldStr(v, "parent_session_id"),
        parentToolCallId: fieldStr(v, "parent_tool_call_id"),
        permissionMode: fieldStr(v, "permission_mode"),
        details: Object.keys(details).length > 0 ? (details as JsonObject) : undefined,
        time,
      }),
    ];
  }

  itemStarted(v: Wire<CodexThreadFields>, session: { sessionId?: string }, time: string | undefined): AgentEventDraft[] {
    const id = fieldStr(v, "item_id") ?? this.state.nextId("item");
    const kind = fieldStr(v, "kind") ?? "tool_call";
    const message = Object.hasOwn(MESSAGE_KINDS, kind) ? MESSAGE_KINDS[kind] : undefined;
    if (message !== undefined) return this.state.start(id, message.role, message.kind, { ...session, time });
    const name = fieldStr(v, "name") ?? kind;
    const toolKind = fieldStr(v, "tool_kind");
    this.state.toolStarted(id, name, session.sessionId);
    return [
      compact({
        type: "tool.started" as const,
        toolCallId: id,
        name,
        kind: toolKind !== undefined && TOOL_KINDS.has(toolKind) ? (toolKind as ToolKind) : undefined,
        input: field(v, "args") === null ? undefined : field(v, "args"),
        server: fieldStr(v, "server"),
        description: fieldStr(v, "description"),
        time,
        ...session,
      }),
    ];
  }

  itemCompleted(v: Wire<CodexThreadFields>, session: { sessionId?: string }, time: string | undefined): AgentEventDraft[] {
    const id = fieldStr(v, "item_id") ?? this.state.nextId("item");
    const kind = fieldStr(v, "kind");
    const message = kind !== undefined && Object.hasOwn(MESSAGE_KINDS, kind) ? MESSAGE_KINDS[kind] : undefined;
    if (message !== undefined || this.state.isOpen(id)) {
      const { role, kind: messageKind } = message ?? { role: "assistant" as const, kind: "text" as const };
      const kindOf = fieldBool(v, "redacted") === true ? "redacted_reasoning" : messageKind;
      return this.state.complete(
        id,
        fieldStr(v, "text") ?? fieldStr(v, "summary") ?? "",
        role,
        kindOf,
        compact({
          ...session,
          time,
          signature: fieldStr(v, "signature"),
          contentType: fieldStr(v, "content_type"),
          language: fieldStr(v, "language"),
          channel: fieldStr(v, "channel"),
        }),
      );
    }
    const out: AgentEventDraft[] = [];
    let name = fieldStr(v, "name") ?? this.state.toolName(id);
    if (this.state.toolName(id) === undefined) {
      name ??= kind ?? "unknown";
      out.push(compact({ type: "tool.started" as const, toolCallId: id, name, time, ...session }));
    }
    this.state.toolCompleted(id);
    const branch = fieldStr(v, "branch_id");
    // Our writer always writes `output` (null when there was none); the design has only a summary.
    const output = Object.hasOwn(v, "output") ? fieldStr(v, "output") : fieldStr(v, "summary");
    out.push(
      compact({
        type: "tool.completed" as const,
        toolCallId: id,
        name,
        output,
        result: field(v, "result") ?? (branch === undefined ? undefined : { branch_id: branch }),
        exitCode: fieldNum(v, "exit_code"),
        isError: fieldStr(v, "status") !== "success",
        durationMs: fieldNum(v, "duration_ms"),
        time,
        ...session,
      }),
    );
    return out;
  }

  threadCompleted(v: Wire<CodexThreadFields>, time: string | undefined): AgentEventDraft[] {
    const status = fieldStr(v, "status");
    // Our writer's "incomplete": the input ended without a completion, so there is none to give.
    if (status === "incomplete") return [];
    const report = fieldObj(v, "final_report");
    const sessionStatusValue = sessionStatus(status);
    const wireUsage = fieldObj(report, "usage");
    return [
      compact({
        type: "session.completed" as const,
        status: sessionStatusValue,
        error:
          report === undefined || !Object.hasOwn(report, "error")
            ? sessionStatusValue === "success"
              ? undefined
              : fieldStr(v, "summary")
            : fieldStr(report, "error"),
        finalText: fieldStr(report, "final_text"),
        usage:
          wireUsage === undefined
            ? undefined
            : (usageFromWire(wireUsage) ?? {
                inputTokens: null,
                outputTokens: null,
                cacheReadTokens: null,
                cacheWriteTokens: null,
                reasoningTokens: null,
              }),
        costUsd: fieldNum(report, "cost_usd"),
        durationMs: fieldNum(report, "duration_ms"),
        turns: fieldNum(report, "turns"),
        details: fieldObj(report, "details"),
        sessionId: fieldStr(v, "session_id"),
        time,
      }),
    ];
  }

  logLine(v: Wire<CodexThreadFields>, time: string | undefined): AgentEventDraft[] {
    const event = embeddedEvent(field(v, "event"));
    if (event === undefined) {
      const level = fieldStr(v, "level") === "warning" ? ("warning" as const) : ("info" as const);
      return [
        compact({
          type: "notice" as const,
          kind: "log",
          level,
          text: fieldStr(v, "message") ?? "",
          details: fieldObj(v, "event"),
          sessionId: fieldStr(v, "session_id"),
          time,
        }),
      ];
    }
    return replayEmbedded(this.state, event);
  }

  decodeJson(v: Wire<CodexThreadFields>, context: DecodeContext): AgentEventDraft[] {
    const time = writtenTime(fieldStr(v, "timestamp"));
    const sessionId = fieldStr(v, "session_id");
    const session = sessionId === undefined ? {} : { sessionId };
    switch (field(v, "type")) {
      case "thread.started":
        return this.threadStarted(v, time);
      case "turn.started":
        return [compact({ type: "turn.started" as const, turnId: fieldStr(v, "turn_id") ?? this.state.nextId("turn"), time, ...session })];
      case "turn.completed": {
        const status = fieldStr(v, "status");
        return [
          compact({
            type: "turn.completed" as const,
            turnId: fieldStr(v, "turn_id") ?? this.state.nextId("turn"),
            status: status === "success" || status === "error" ? (status as "success" | "error") : undefined,
            error: fieldStr(v, "error"),
            usage: usageFromWire(fieldObj(v, "usage")),
            costUsd: fieldNum(v, "cost_usd"),
            time,
            ...session,
          }),
        ];
      }
      case "item.started":
        return this.itemStarted(v, session, time);
      case "item.completed":
        return this.itemCompleted(v, session, time);
      case "thread.completed":
        return this.threadCompleted(v, time);
      case "error": {
        const scope = fieldStr(v, "scope");
        const ours = scope !== undefined && Object.hasOwn(SCOPES, scope) ? SCOPES[scope] : undefined;
        return [
          compact({
            type: "error" as const,
            scope: ours ?? "session",
            message: fieldStr(v, "message") ?? "",
            // A scope we have no name for (or one we renamed) is kept as the code.
            code: fieldStr(v, "code") ?? (scope !== undefined && scope !== ours ? scope : undefined),
            fatal: fieldBool(v, "fatal"),
            toolCallId: fieldStr(v, "item_id"),
            turnId: fieldStr(v, "turn_id"),
            time,
            ...session,
          }),
        ];
      }
      case "log":
        return this.logLine(v, time);
      case "publish.started": {
        // The design's alias of item.started for the publish step.
        this.lastPublish = this.state.nextId("publish");
        this.state.toolStarted(this.lastPublish, "publish");
        return [
          compact({
            type: "tool.started" as const,
            toolCallId: this.lastPublish,
            name: "publish",
            input: compact({ parent_branch_id: field(v, "parent_branch_id"), workspace_dir: field(v, "workspace_dir") }),
            time,
          }),
        ];
      }
      case "publish.completed": {
        const out: AgentEventDraft[] = [];
        const id = this.lastPublish ?? this.state.nextId("publish");
        if (this.lastPublish === undefined) out.push(compact({ type: "tool.started" as const, toolCallId: id, name: "publish", time }));
        this.lastPublish = undefined;
        this.state.toolCompleted(id);
        const report = field(v, "publish_report");
        const output = typeof report === "string" ? report : report === undefined || report === null ? undefined : JSON.stringify(report);
        out.push(
          compact({
            type: "tool.completed" as const,
            toolCallId: id,
            name: "publish",
            output,
            result: compact({ branch_id: field(v, "branch_id") }),
            isError: false,
            time,
          }),
        );
        return out;
      }
      case "assistant.message": {
        // An earlier draft of the design: a preview of at most 500 characters, not the whole text.
        const id = this.state.nextId("assistant");
        return this.state.complete(id, fieldStr(v, "preview") ?? "", "assistant", "text", { time });
      }
      default:
        context.report({ code: "unknown-record", message: `unknown codex-thread event type ${JSON.stringify(field(v, "type"))}` });
        return [unknownRecord(v, `unknown codex-thread event type ${JSON.stringify(field(v, "type"))}`)];
    }
  }
}
