// Source: `cline --oneshot --yolo -F json "<prompt>"` (Go CLI 1.x) and `cline … --json` (TS CLI 2.x); versions and quirks: docs/dialects/cline.md
import type { AgentEventDraft, FileChange, JsonObject, JsonValue, PlanItem, ToolKind } from "../../model/events.ts";
import { usageFrom } from "../../model/usage.ts";
import type { DecodeContext, Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { compact, num, str } from "../../dialect/json.ts";
import { asWire, fieldArr, fieldBool, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import { createStreamState } from "../../dialect/messages.ts";
import { isoFromEpochMs } from "../../dialect/time.ts";
import { type Handler, dispatch, handlers } from "../../dialect/handlers.ts";

/** A `ClineMessage` as the CLI prints it (Go struct order: type, text, ts, reasoning, say|ask, partial, ...). */
interface ClineMessageRecord {
  type: "say" | "ask";
  ts: number;
  say?: string;
  ask?: string;
  /** Always present in the Go CLI, often `""`; many subtypes put JSON text here. */
  text?: string;
  reasoning?: string;
  partial?: boolean;
  lastCheckpointHash?: string;
  /** Newer command fields. */
  exitCode?: number;
  commandCompleted?: boolean;
  modelInfo?: { modelId?: string; providerId?: string; mode?: string };
}

/** TS CLI 2.x first line. */
interface TaskStartedRecord {
  type: "task_started";
  taskId: string;
}

/** TS CLI 2.x failure line. */
interface ErrorRecord {
  type: "error";
  message: string;
}

/** `say:api_req_started` text (ClineApiReqInfo) and `say:subagent_usage` text. */
interface ApiReqInfo {
  request?: string;
  tokensIn?: number;
  tokensOut?: number;
  cacheWrites?: number;
  cacheReads?: number;
  cost?: number;
  cancelReason?: "streaming_failed" | "user_cancelled" | "retries_exhausted";
  streamingFailedMessage?: string;
  retryStatus?: { attempt: number; maxAttempts: number; delaySec: number; errorSnippet?: string };
}

/** `say:tool` / `ask:tool` text (ClineSayTool). */
interface SayTool {
  tool: string;
  path?: string;
  diff?: string;
  content?: string;
  regex?: string;
  filePattern?: string;
}

/** `say:use_mcp_server` / `ask:use_mcp_server` text. */
interface UseMcpServer {
  serverName: string;
  type: "use_mcp_tool" | "access_mcp_resource";
  toolName?: string;
  arguments?: string;
  uri?: string;
}

/** `ask:plan_mode_respond` / `ask:followup` text (newer CLIs): the reply or question and the offered options. */
interface PlanModeResponse {
  response?: string;
  question?: string;
  options?: JsonValue[];
}

/** `say:error_retry` / `say:api_req_retried` text. */
interface RetryInfo {
  attempt?: number;
  maxAttempts?: number;
  errorSnippet?: string;
}

/** `say:browser_action_result` text. */
interface BrowserActionResult {
  logs?: string;
  currentUrl?: string;
}

/** Every line of the output. */
type ClineRecord = ClineMessageRecord | TaskStartedRecord | ErrorRecord;

/** Every `say` subtype of ClineSay (cline/cline src/shared/ExtensionMessage.ts). */
const SAY_TYPES = new Set([
  "task",
  "error",
  "error_retry",
  "api_req_started",
  "api_req_finished",
  "text",
  "reasoning",
  "completion_result",
  "user_feedback",
  "user_feedback_diff",
  "api_req_retried",
  "command",
  "command_output",
  "tool",
  "shell_integration_warning",
  "shell_integration_warning_with_suggestion",
  "browser_action_launch",
  "browser_action",
  "browser_action_result",
  "mcp_server_request_started",
  "mcp_server_response",
  "mcp_notification",
  "use_mcp_server",
  "diff_error",
  "deleted_api_reqs",
  "clineignore_error",
  "command_permission_denied",
  "checkpoint_created",
  "load_mcp_documentation",
  "generate_explanation",
  "info",
  "task_progress",
  "hook_status",
  "hook_output_stream",
  "subagent",
  "use_subagents",
  "subagent_usage",
  "conditional_rules_applied",
]);
/** Every `ask` subtype of ClineAsk. */
const ASK_TYPES = new Set([
  "followup",
  "plan_mode_respond",
  "act_mode_respond",
  "command",
  "command_output",
  "completion_result",
  "tool",
  "api_req_failed",
  "resume_task",
  "resume_completed_task",
  "mistake_limit_reached",
  "auto_approval_max_req_reached",
  "browser_action_launch",
  "use_mcp_server",
  "new_task",
  "condense",
  "summarize_task",
  "report_bug",
  "use_subagents",
]);

const TOOL_KINDS: Record<string, ToolKind> = {
  readFile: "file_read",
  editedExistingFile: "file_edit",
  newFileCreated: "file_write",
  fileDeleted: "file_write",
  listFilesTopLevel: "search",
  listFilesRecursive: "search",
  listCodeDefinitionNames: "search",
  searchFiles: "search",
  webFetch: "web_fetch",
  webSearch: "web_search",
};

/** Parses JSON text carried inside a message's `text`; undefined when it is not a JSON object. */
function parseObject<T = JsonObject>(text: string | undefined): Wire<T> | undefined {
  if (text === undefined || !text.startsWith("{")) return undefined;
  try {
    return asWire<T>(JSON.parse(text) as JsonValue);
  } catch {
    return undefined;
  }
}

/** `- [x] done` / `- [ ] todo` lines of a task_progress checklist. */
function planItems(text: string): PlanItem[] {
  const items: PlanItem[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s*[-*]\s*\[([ xX~-])\]\s*(.*)$/.exec(line);
    if (m === null) continue;
    const mark = m[1] as string;
    items.push({
      text: (m[2] as string).trim(),
      status: mark === " " ? "pending" : mark === "x" || mark === "X" ? "completed" : "in_progress",
    });
  }
  return items;
}

/** A tool call waiting for its output records (commands, MCP, browser) or the next record. */
interface PendingTool {
  id: string;
  name: string;
  /** Which follow-up subtype carries its output. */
  outputSay: string;
  output: string[];
  exitCode: number | undefined;
  command: string | undefined;
}

/** Cline CLI JSON output: ClineMessage objects (`say`/`ask`), one per line or pretty-printed. */
export const cline: Dialect = {
  name: "cline",
  description: "Cline CLI JSON output (say/ask messages, pretty-printed objects)",
  detect(record) {
    if (record.kind !== "json") return false;
    const v = record.value;
    const type = str(v, "type");
    if (type === "task_started") return str(v, "taskId") !== undefined;
    if (type !== "say" && type !== "ask") return false;
    return num(v, "ts") !== undefined && str(v, type) !== undefined;
  },
  createDecoder: createClineDecoder,
};

function createClineDecoder(): DialectDecoder {
  const decoding = new ClineStream();
  return {
    decode(record, context) {
      if (record.kind !== "json") return [];
      const v = record.value;
      const line: Wire<ClineRecord> = v;
      const type = fieldStr(line, "type");
      if (type === "say" || type === "ask") return decoding.decodeMessage(v, context);
      if (type === "task_started") {
        const out = [...decoding.closePending(), ...decoding.closePartials(undefined)];
        decoding.sessionId = fieldStr(asWire<TaskStartedRecord>(v), "taskId");
        out.push(...decoding.sessionStart(undefined));
        return out;
      }
      if (type === "error") {
        const message = fieldStr(asWire<ErrorRecord>(v), "message") ?? "Cline reported an error";
        const out: AgentEventDraft[] = [...decoding.closePending(), ...decoding.closePartials(undefined)];
        if (!decoding.sessionOpen) out.push(...decoding.sessionStart(undefined));
        out.push({ type: "error", scope: "session", message, fatal: true });
        if (!decoding.taskCompleted) {
          decoding.taskCompleted = true;
          out.push({ type: "session.completed", status: "error", error: message });
        }
        return out;
      }
      context.report({ code: "unknown-record", message: `unknown Cline record type ${type === undefined ? "(none)" : `"${type}"`}` });
      return [unknownRecord(v, `unknown Cline record type ${type === undefined ? "(none)" : `"${type}"`}`)];
    },
    end() {
      const out: AgentEventDraft[] = [];
      if (decoding.pending !== undefined && decoding.pending.output.length > 0) out.push(...decoding.closePending());
      decoding.pending = undefined;
      out.push(...decoding.closePartials(undefined));
      out.push(...decoding.state.closeAll());
      return out;
    },
  };
}

/** One stream's decoding state, and the handlers that read and update it. */
class ClineStream {
  readonly state = createStreamState();
  sessionOpen = false;
  taskCompleted = false;
  apiRequestsInTask = 0;
  sessionId: string | undefined;
  pending: PendingTool | undefined;
  lastCompletion: string | undefined;
  // Open partial messages by id, with the latest snapshot text.
  readonly partials = new Map<string, { role: "assistant" | "user"; kind: "text" | "reasoning"; text: string }>();
  // Usage already counted per api_req_started ts, so a re-printed record is not counted twice.
  readonly countedUsage = new Map<number, { i: number; o: number; cw: number; cr: number; c: number }>();
  readonly startedTurns = new Set<number>();

  sessionStart(time: string | undefined): AgentEventDraft[] {
    this.sessionOpen = true;
    this.taskCompleted = false;
    this.apiRequestsInTask = 0;
    this.lastCompletion = undefined;
    return [compact({ type: "session.started" as const, agent: "cline", sessionId: this.sessionId, time })];
  }

  closePending(): AgentEventDraft[] {
    if (this.pending === undefined) return [];
    const p = this.pending;
    this.pending = undefined;
    this.state.toolCompleted(p.id);
    const output = p.output.length > 0 ? p.output.join("\n") : undefined;
    return [
      compact({
        type: "tool.completed" as const,
        toolCallId: p.id,
        name: p.name,
        output,
        exitCode: p.exitCode,
        isError: p.exitCode !== undefined && p.exitCode !== 0,
      }),
    ];
  }

  closePartials(exceptId: string | undefined): AgentEventDraft[] {
    const out: AgentEventDraft[] = [];
    for (const [id, p] of [...this.partials]) {
      if (id === exceptId) continue;
      this.partials.delete(id);
      out.push(...this.state.complete(id, p.text, p.role, p.kind));
    }
    return out;
  }

  /** A whole or partial text message; partial records are snapshots of the message so far, with the same ts. */
  message(
    id: string,
    text: string,
    role: "assistant" | "user",
    kind: "text" | "reasoning",
    partial: boolean,
    time: string | undefined,
  ): AgentEventDraft[] {
    if (partial) {
      const known = this.partials.get(id);
      this.partials.set(id, { role, kind, text });
      // Cline 1.0.9 prints partial snapshots (the whole text so far); we pass each new snapshot on as a delta and leave de-duplication to the repair stage.
      if (known === undefined && text === "") return this.state.start(id, role, kind, compact({ time }));
      if (known !== undefined && known.text === text) return [];
      return this.state.delta(id, text, role, kind, compact({ time }));
    }
    this.partials.delete(id);
    return this.state.complete(id, text, role, kind, compact({ time }));
  }

  startTool(
    name: string,
    kind: ToolKind,
    input: JsonValue | undefined,
    time: string | undefined,
    extra: { server?: string | undefined; outputSay: string; command?: string },
  ): AgentEventDraft[] {
    const out = this.closePending();
    const id = this.state.nextId("cline-tool");
    this.state.toolStarted(id, name);
    out.push(compact({ type: "tool.started" as const, toolCallId: id, name, kind, input, server: extra.server, time }));
    this.pending = { id, name, outputSay: extra.outputSay, output: [], exitCode: undefined, command: extra.command };
    return out;
  }

  usageOf(info: Wire<ApiReqInfo>, ts: number | undefined, model: string | undefined, time: string | undefined): AgentEventDraft[] {
    const figures = {
      i: fieldNum(info, "tokensIn") ?? 0,
      o: fieldNum(info, "tokensOut") ?? 0,
      cw: fieldNum(info, "cacheWrites") ?? 0,
      cr: fieldNum(info, "cacheReads") ?? 0,
      c: fieldNum(info, "cost") ?? 0,
    };
    const has = (["tokensIn", "tokensOut", "cacheWrites", "cacheReads", "cost"] as const).some((k) => fieldNum(info, k) !== undefined);
    if (!has) return [];
    const before = ts === undefined ? undefined : this.countedUsage.get(ts);
    if (ts !== undefined) this.countedUsage.set(ts, figures);
    // Cline updates api_req_started in place (same ts) when the request ends; a re-printed record adds only what changed.
    const d =
      before === undefined
        ? figures
        : {
            i: figures.i - before.i,
            o: figures.o - before.o,
            cw: figures.cw - before.cw,
            cr: figures.cr - before.cr,
            c: figures.c - before.c,
          };
    if (before !== undefined && d.i === 0 && d.o === 0 && d.cw === 0 && d.cr === 0 && d.c === 0) return [];
    const usage = usageFrom({ inputTokens: d.i, outputTokens: d.o, cacheWriteTokens: d.cw, cacheReadTokens: d.cr });
    const costUsd = fieldNum(info, "cost") === undefined ? undefined : Math.round(d.c * 1e10) / 1e10;
    return [compact({ type: "usage" as const, usage, scope: "delta" as const, costUsd, model, time })];
  }

  completion(text: string, ts: number | undefined, time: string | undefined): AgentEventDraft[] {
    const out = this.state.complete(`completion_result-${ts ?? this.state.nextId("n")}`, text, "assistant", "text", compact({ time }));
    this.lastCompletion = text;
    if (!this.taskCompleted) {
      this.taskCompleted = true;
      out.push(compact({ type: "session.completed" as const, status: "success" as const, finalText: text, time }));
    }
    return out;
  }

  notice(kind: string, text: string, time: string | undefined, level: "info" | "warning" = "info", details?: JsonObject): AgentEventDraft {
    return compact({ type: "notice" as const, kind, level, text, details, time });
  }

  decodeMessage(v: Wire<ClineMessageRecord>, context: DecodeContext): AgentEventDraft[] {
    const type = fieldStr(v, "type") as "say" | "ask";
    const sub = fieldStr(v, type) ?? "";
    const ts = fieldNum(v, "ts");
    const time = isoFromEpochMs(ts);
    const text = fieldStr(v, "text") ?? "";
    const partial = fieldBool(v, "partial") === true;
    const key = `${type}:${sub}`;
    const id = `${sub}-${ts ?? this.state.nextId("ts")}`;
    const known = type === "say" ? SAY_TYPES.has(sub) : ASK_TYPES.has(sub);
    if (!known) {
      context.report({ code: "unknown-record", message: `unknown Cline ${type} "${sub}"` });
      return [unknownRecord(v, `unknown Cline ${type} "${sub}"`)];
    }

    const out: AgentEventDraft[] = [];
    // A new task: the first say:text (or say:task) of a stream, or one after a completed task.
    const isPrompt =
      (key === "say:task" || key === "say:text") &&
      !partial &&
      (!this.sessionOpen || (this.taskCompleted && key === "say:text") || this.apiRequestsInTask === 0);
    if (!this.sessionOpen || (isPrompt && this.taskCompleted))
      out.push(...this.closePending(), ...this.closePartials(undefined), ...this.sessionStart(time));
    if (!this.partials.has(id)) out.push(...this.closePartials(id));
    const isOutput =
      this.pending !== undefined &&
      (sub === this.pending.outputSay ||
        (sub === "command" && this.pending.outputSay === "command_output" && this.pending.command === text) ||
        (sub === "mcp_server_request_started" && this.pending.outputSay === "mcp_server_response"));
    if (!isOutput) out.push(...this.closePending());

    const reasoningField = fieldStr(v, "reasoning");
    if (reasoningField !== undefined && reasoningField !== "" && sub !== "reasoning")
      out.push(
        ...this.state.complete(
          `reasoning-field-${ts ?? this.state.nextId("ts")}`,
          reasoningField,
          "assistant",
          "reasoning",
          compact({ time }),
        ),
      );

    const record: ClineMessage = { v, type, sub, ts, time, text, partial, id, isPrompt, isOutput, key };
    if (!dispatch(messageHandlers, key, record, this, out, context)) {
      // Documented subtypes with nothing for the model (api_req_finished, info, hook_status, resume_task, new_task, ...).
      out.push(this.notice(type === "ask" ? `ask:${sub}` : sub, text, time, "info"));
    }
    return out;
  }
}

/** A Cline message as its handler sees it: the record and what decodeMessage worked out about it. */
interface ClineMessage {
  readonly v: Wire<ClineMessageRecord>;
  readonly type: "say" | "ask";
  readonly sub: string;
  readonly ts: number | undefined;
  readonly time: string | undefined;
  readonly text: string;
  readonly partial: boolean;
  readonly id: string;
  readonly isPrompt: boolean;
  readonly isOutput: boolean;
  readonly key: string;
}

/** The `say`/`ask` messages with a handler of their own (others become notices). */
type ClineMessageKey =
  | "say:task"
  | "say:user_feedback"
  | "say:text"
  | "say:reasoning"
  | "ask:plan_mode_respond"
  | "ask:act_mode_respond"
  | "ask:followup"
  | "say:completion_result"
  | "ask:completion_result"
  | "say:api_req_started"
  | "say:subagent_usage"
  | "say:command"
  | "ask:command"
  | "say:command_output"
  | "ask:command_output"
  | "say:tool"
  | "ask:tool"
  | "say:use_mcp_server"
  | "ask:use_mcp_server"
  | "say:mcp_server_response"
  | "say:browser_action_launch"
  | "ask:browser_action_launch"
  | "say:browser_action"
  | "say:browser_action_result"
  | "say:task_progress"
  | "say:error"
  | "say:diff_error"
  | "say:clineignore_error"
  | "say:command_permission_denied"
  | "ask:api_req_failed"
  | "ask:mistake_limit_reached"
  | "ask:auto_approval_max_req_reached"
  | "say:error_retry"
  | "say:api_req_retried"
  | "say:checkpoint_created"
  | "say:shell_integration_warning"
  | "say:shell_integration_warning_with_suggestion";

const task: Handler<ClineMessage, ClineStream> = (r, s, out) => {
  const { time, text, partial, id } = r;
  out.push(...s.message(id, text, "user", "text", partial, time));
};

const planModeRespond: Handler<ClineMessage, ClineStream> = (r, s, out) => {
  const { time, text, partial, id } = r;
  // These asks carry JSON text: {response|question, options}; older ones carry plain text.
  const body = parseObject<PlanModeResponse>(text);
  const said = body === undefined ? text : (fieldStr(body, "response") ?? fieldStr(body, "question") ?? text);
  out.push(...s.message(id, said, "assistant", "text", partial, time));
  const options = fieldArr(body, "options");
  if (!partial && options !== undefined && options.length > 0) {
    out.push(
      s.notice("options", options.map((o) => (typeof o === "string" ? o : JSON.stringify(o))).join("\n"), time, "info", { options }),
    );
  }
};

const command: Handler<ClineMessage, ClineStream> = (r, s, out) => {
  const { time, text, isOutput } = r;
  if (isOutput) return; // the approved ask:command repeated as say:command: same call
  out.push(...s.startTool("execute_command", "command", { command: text }, time, { outputSay: "command_output", command: text }));
};

const commandOutput: Handler<ClineMessage, ClineStream> = (r, s, out) => {
  const { v, time, text, isOutput } = r;
  if (s.pending !== undefined && isOutput) {
    s.pending.output.push(text);
    const exit = fieldNum(v, "exitCode");
    if (exit !== undefined) s.pending.exitCode = exit;
    out.push(compact({ type: "tool.progress" as const, toolCallId: s.pending.id, output: text, time }));
  } else {
    out.push(s.notice("command_output", text, time));
  }
};

const tool: Handler<ClineMessage, ClineStream> = (r, s, out) => {
  const { time, text } = r;
  const tool = parseObject<SayTool>(text);
  const name = fieldStr(tool, "tool") ?? "tool";
  out.push(...s.startTool(name, TOOL_KINDS[name] ?? "other", tool ?? text, time, { outputSay: "" }));
  const path = fieldStr(tool, "path");
  const content = fieldStr(tool, "content");
  if (s.pending !== undefined && content !== undefined && name !== "readFile") s.pending.output.push(content);
  if (path !== undefined && (name === "editedExistingFile" || name === "newFileCreated" || name === "fileDeleted")) {
    const change: FileChange = compact({
      path,
      kind: name === "newFileCreated" ? ("add" as const) : name === "fileDeleted" ? ("delete" as const) : ("update" as const),
      diff: fieldStr(tool, "diff") ?? content,
    });
    out.push(compact({ type: "file.changed" as const, changes: [change], toolCallId: s.pending?.id, time }));
  }
};

const useMcpServer: Handler<ClineMessage, ClineStream> = (r, s, out) => {
  const { time, text } = r;
  const call = parseObject<UseMcpServer>(text);
  const resource = fieldStr(call, "type") === "access_mcp_resource";
  let input: JsonValue | undefined = resource ? compact({ uri: fieldStr(call, "uri") }) : undefined;
  const args = fieldStr(call, "arguments");
  if (!resource && args !== undefined) input = parseObject(args) ?? args;
  const name = resource ? "access_mcp_resource" : (fieldStr(call, "toolName") ?? "mcp_tool");
  out.push(
    ...s.startTool(name, "mcp", input ?? call ?? text, time, { server: fieldStr(call, "serverName"), outputSay: "mcp_server_response" }),
  );
};

const browserActionLaunch: Handler<ClineMessage, ClineStream> = (r, s, out) => {
  const { time, text } = r;
  out.push(...s.startTool("browser_action", "web_fetch", { action: "launch", url: text }, time, { outputSay: "browser_action_result" }));
};

const error: Handler<ClineMessage, ClineStream> = (r, _s, out) => {
  const { sub, time, text, key } = r;
  out.push(
    compact({ type: "error" as const, scope: key === "say:error" ? ("turn" as const) : ("tool" as const), message: text, code: sub, time }),
  );
};

const mistakeLimitReached: Handler<ClineMessage, ClineStream> = (r, _s, out) => {
  const { sub, time, text } = r;
  out.push(compact({ type: "error" as const, scope: "session" as const, message: text === "" ? sub : text, code: sub, time }));
};

const errorRetry: Handler<ClineMessage, ClineStream> = (r, _s, out) => {
  const { time, text } = r;
  const info = parseObject<RetryInfo>(text);
  out.push(
    compact({
      type: "retry" as const,
      attempt: fieldNum(info, "attempt") ?? 1,
      maxAttempts: fieldNum(info, "maxAttempts"),
      error: fieldStr(info, "errorSnippet") ?? (info === undefined && text !== "" ? text : undefined),
      time,
    }),
  );
};

const shellIntegrationWarning: Handler<ClineMessage, ClineStream> = (r, s, out) => {
  const { sub, time, text } = r;
  out.push(s.notice(sub, text, time, "warning"));
};

const messageHandlers = handlers<ClineMessageKey, ClineMessage, ClineStream>({
  "say:task": task,
  "say:user_feedback": task,
  "say:text": (r, s, out) => {
    const { time, text, partial, id, isPrompt } = r;
    out.push(...s.message(id, text, isPrompt ? "user" : "assistant", "text", partial, time));
  },
  "say:reasoning": (r, s, out) => {
    const { time, text, partial, id } = r;
    out.push(...s.message(id, text, "assistant", "reasoning", partial, time));
  },
  "ask:plan_mode_respond": planModeRespond,
  "ask:act_mode_respond": planModeRespond,
  "ask:followup": planModeRespond,
  "say:completion_result": (r, s, out) => {
    const { ts, time, text, partial, id } = r;
    if (!partial) out.push(...s.completion(text, ts, time));
    else out.push(...s.message(id, text, "assistant", "text", true, time));
  },
  "ask:completion_result": (r, s, out) => {
    const { ts, time, text, partial } = r;
    // Cline asks for feedback after say:completion_result, usually with empty text; only a new text is a result.
    if (text !== "" && text !== s.lastCompletion && !partial) out.push(...s.completion(text, ts, time));
    else out.push(s.notice("ask", "completion_result: waiting for the user's feedback", time));
  },
  "say:api_req_started": (r, s, out) => {
    const { v, ts, time, text } = r;
    s.apiRequestsInTask++;
    // One API request is one turn; Cline re-prints the record (same ts) when the request ends, so a turn starts once per ts.
    if (ts === undefined || !s.startedTurns.has(ts)) {
      if (ts !== undefined) s.startedTurns.add(ts);
      out.push(compact({ type: "turn.started" as const, turnId: `api_req-${ts ?? s.state.nextId("ts")}`, time }));
    }
    const info = parseObject<ApiReqInfo>(text);
    if (info === undefined) {
      out.push(s.notice("api_request", text, time));
      return;
    }
    out.push(...s.usageOf(info, ts, fieldStr(fieldObj(v, "modelInfo"), "modelId"), time));
    const retry = fieldObj(info, "retryStatus");
    if (retry !== undefined) {
      out.push(
        compact({
          type: "retry" as const,
          attempt: fieldNum(retry, "attempt") ?? 1,
          maxAttempts: fieldNum(retry, "maxAttempts"),
          delayMs: fieldNum(retry, "delaySec") === undefined ? undefined : (fieldNum(retry, "delaySec") as number) * 1000,
          error: fieldStr(retry, "errorSnippet"),
          time,
        }),
      );
    }
    const cancel = fieldStr(info, "cancelReason");
    if (cancel !== undefined) {
      out.push(
        compact({
          type: "error" as const,
          scope: "api" as const,
          message: fieldStr(info, "streamingFailedMessage") ?? `API request cancelled: ${cancel}`,
          code: cancel,
          time,
        }),
      );
    }
  },
  "say:subagent_usage": (r, s, out) => {
    const { time, text } = r;
    const info = parseObject<ApiReqInfo>(text);
    if (info !== undefined) out.push(...s.usageOf(info, undefined, undefined, time));
    else out.push(s.notice("subagent_usage", text, time));
  },
  "say:command": command,
  "ask:command": command,
  "say:command_output": commandOutput,
  "ask:command_output": commandOutput,
  "say:tool": tool,
  "ask:tool": tool,
  "say:use_mcp_server": useMcpServer,
  "ask:use_mcp_server": useMcpServer,
  "say:mcp_server_response": (r, s, out) => {
    const { time, text, isOutput } = r;
    if (s.pending !== undefined && isOutput) s.pending.output.push(text);
    else out.push(s.notice("mcp_server_response", text, time));
  },
  "say:browser_action_launch": browserActionLaunch,
  "ask:browser_action_launch": browserActionLaunch,
  "say:browser_action": (r, s, out) => {
    const { time, text } = r;
    out.push(...s.startTool("browser_action", "other", parseObject(text) ?? text, time, { outputSay: "browser_action_result" }));
  },
  "say:browser_action_result": (r, s, out) => {
    const { time, text, isOutput } = r;
    const result = parseObject<BrowserActionResult>(text);
    const logs = fieldStr(result, "logs");
    if (s.pending !== undefined && isOutput) s.pending.output.push(logs ?? fieldStr(result, "currentUrl") ?? "");
    else out.push(s.notice("browser_action_result", logs ?? "", time));
  },
  "say:task_progress": (r, s, out) => {
    const { time, text } = r;
    const items = planItems(text);
    out.push(items.length > 0 ? compact({ type: "plan.updated" as const, items, time }) : s.notice("task_progress", text, time));
  },
  "say:error": error,
  "say:diff_error": error,
  "say:clineignore_error": error,
  "say:command_permission_denied": error,
  "ask:api_req_failed": (r, _s, out) => {
    const { sub, time, text } = r;
    out.push(compact({ type: "error" as const, scope: "api" as const, message: text, code: sub, time }));
  },
  "ask:mistake_limit_reached": mistakeLimitReached,
  "ask:auto_approval_max_req_reached": mistakeLimitReached,
  "say:error_retry": errorRetry,
  "say:api_req_retried": errorRetry,
  "say:checkpoint_created": (r, s, out) => {
    const { v, time } = r;
    out.push(s.notice("checkpoint", fieldStr(v, "lastCheckpointHash") ?? "checkpoint created", time));
  },
  "say:shell_integration_warning": shellIntegrationWarning,
  "say:shell_integration_warning_with_suggestion": shellIntegrationWarning,
});
