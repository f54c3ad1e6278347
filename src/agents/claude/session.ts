// Source: Claude Code session transcripts that `claude` writes by itself (any mode) to ~/.claude/projects/<project>/<session>.jsonl and, for subagents (2.x), <session>/subagents/agent-<id>.jsonl; versions and quirks: docs/dialects/claude-session.md
import type { AgentEventDraft, FileChange, JsonObject, JsonValue, MessageKind, PlanItem, Usage } from "../../model/events.ts";
import type { InputRecord } from "../../framing/ndjson/create-ndjson-parser.ts";
import { emptyUsage } from "../../model/usage.ts";
import { claudeUsageKey } from "../../model/usage-keys.ts";
import { arr, bool, obj, str } from "../../dialect/json.ts";
import { asWire, field, fieldArr, fieldBool, fieldItems, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import { createStreamState } from "../../dialect/messages.ts";
import { type ContentBlock, type WireUsage, anthropicUsage, classifyTool, contentText, planStatus, unifiedDiff } from "./wire.ts";
import type { Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";

// ---------------------------------------------------------------------------------------------
// Wire types: what a transcript line looks like (read with the safe readers of _json.ts).
// ---------------------------------------------------------------------------------------------

/** Fields of the conversation records (user, assistant, system, attachment, progress). */
interface TranscriptEnvelope {
  type: string;
  uuid?: string;
  /** `null` for the first record of a chain (a session, a sidechain, or the record after a compaction). */
  parentUuid?: string | null;
  logicalParentUuid?: string;
  /** True for Task / Agent subagent records (inline in 1.x, in subagents/agent-<id>.jsonl in 2.x). */
  isSidechain?: boolean;
  /** 2.x subagent records: the agent's id (the `agent-<id>.jsonl` file name). */
  agentId?: string;
  sessionId?: string;
  /** 2.1.2xx assistant records repeat it in snake case. */
  session_id?: string;
  version?: string;
  cwd?: string;
  gitBranch?: string;
  entrypoint?: string;
  userType?: string;
  slug?: string;
  timestamp?: string;
  isMeta?: boolean;
  /** Set on user records (the mode the prompt was sent in); read from any record for session.started. */
  permissionMode?: string;
  /** 2.x subagent records: the subagent's type. */
  attributionAgent?: string;
}

/** `type:"assistant"`: one record per content block; the records of one API message share `message.id`. */
interface AssistantRecord extends TranscriptEnvelope {
  type: "assistant";
  /** The API request; with `message.id` it names one response, whose usage is counted once. */
  requestId?: string;
  /** The response's cost in USD, written by some (early) Claude Code versions. */
  costUSD?: number;
  message: { id?: string; model?: string; content?: ContentBlock[]; stop_reason?: string | null; usage?: WireUsage };
  /** Synthetic API-error messages (model `<synthetic>`): `rate_limit`, `invalid_request`, ... */
  error?: string;
  isApiErrorMessage?: boolean;
  apiErrorStatus?: number;
}

/** `type:"user"`: a prompt, tool results, meta text or a slash-command wrapper. */
interface UserRecord extends TranscriptEnvelope {
  type: "user";
  message: { role: "user"; content: string | ContentBlock[] };
  /** Structured tool result: Bash `{stdout, stderr, interrupted}`, edits `{filePath, structuredPatch}`, ... or an error string. */
  toolUseResult?: JsonValue;
  isCompactSummary?: boolean;
  /** Meta records written for a tool call (skill text, ...): the tool call's id. */
  sourceToolUseID?: string;
}

/** A structured `toolUseResult` as far as the decoder reads it (Bash, edits, Task / Agent, TaskCreate). */
interface TranscriptToolResult {
  type?: string;
  exitCode?: number;
  durationSeconds?: number;
  durationMs?: number;
  totalDurationMs?: number;
  totalTokens?: number;
  totalToolUseCount?: number;
  agentId?: string;
  filePath?: string;
  structuredPatch?: JsonValue[];
  content?: string;
  task?: { id?: string };
}

/** The tool inputs the decoder looks into: a description, a Task prompt, TodoWrite's list, TaskCreate / TaskUpdate. */
interface TranscriptToolInput {
  description?: string;
  prompt?: string;
  todos?: TranscriptTodo[];
  subject?: string;
  status?: string;
  taskId?: string;
}

/** A TodoWrite item (Claude: `content`; the compatible agents: `text` or `description`). */
interface TranscriptTodo {
  content?: string;
  text?: string;
  description?: string;
  status?: string;
}

/** `type:"system"`: compaction, local commands, hooks, API retries, turn durations. */
interface SystemRecord extends TranscriptEnvelope {
  type: "system";
  subtype?: string;
  content?: string;
  level?: "info" | "warning" | "error" | "suggestion";
  compactMetadata?: { trigger?: string; preTokens?: number };
  retryAttempt?: number;
  maxRetries?: number;
  retryInMs?: number;
  error?: { message?: string; status?: number; formatted?: string };
  durationMs?: number;
  hookErrors?: JsonValue[];
  preventedContinuation?: boolean;
  hookCount?: number;
  stopReason?: string;
  messageCount?: number;
}

/** `type:"attachment"` (2.1.x): `attachment.type` ∈ goal_status, skill_listing, agent_listing_delta, hook_*, ... */
interface AttachmentRecord extends TranscriptEnvelope {
  type: "attachment";
  attachment: {
    type?: string;
    content?: string;
    stdout?: string;
    exitCode?: number;
    addedTypes?: JsonValue[];
    met?: boolean;
    sentinel?: boolean;
    condition?: string;
    reason?: string;
  };
}

/** `type:"progress"` (2.0.x): bash / hook / agent progress tied to a tool call by `parentToolUseID`. */
interface ProgressRecord extends TranscriptEnvelope {
  type: "progress";
  data: { type?: string; output?: string; elapsedTimeSeconds?: number; hookName?: string };
  toolUseID?: string;
  parentToolUseID?: string;
}

/** Records outside the conversation tree (no uuid): titles, modes, snapshots, queue operations. */
interface MetadataRecord {
  type:
    | "summary"
    | "file-history-snapshot"
    | "queue-operation"
    | "mode"
    | "permission-mode"
    | "bridge-session"
    | "ai-title"
    | "custom-title"
    | "last-prompt"
    | "tag"
    | "agent-name";
  sessionId?: string;
  /** summary */
  summary?: string;
  leafUuid?: string;
  /** file-history-snapshot */
  messageId?: string;
  snapshot?: { timestamp?: string; trackedFileBackups?: JsonObject };
  isSnapshotUpdate?: boolean;
  /** queue-operation */
  operation?: string;
  content?: string;
  timestamp?: string;
  mode?: string;
  permissionMode?: string;
  bridgeSessionId?: string;
  aiTitle?: string;
  customTitle?: string;
  lastPrompt?: string;
  tag?: string;
  agentName?: string;
}

/** The fields that name a record's session, on conversation and metadata records alike. */
type SessionKeys = Pick<TranscriptEnvelope, "sessionId" | "timestamp">;

/** Every transcript record this dialect reads. */
type ClaudeSessionRecord = AssistantRecord | UserRecord | SystemRecord | AttachmentRecord | ProgressRecord | MetadataRecord;

// ---------------------------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------------------------

const DIALECT = "claude-session";
const AGENT = "claude-code";
/** Claude Code writes this model name on messages it makes itself (API errors, "No response requested."). */
const SYNTHETIC_MODEL = "<synthetic>";
/** Records held while a session's model is still unknown, at most (then they go out without it). */
const HOLD_LIMIT = 512;

/** Record types without a uuid that only transcripts write, and the notice kind each becomes. */
const METADATA_KINDS: ReadonlyMap<string, string> = new Map([
  ["summary", "summary"],
  ["file-history-snapshot", "file_history_snapshot"],
  ["queue-operation", "queue_operation"],
  ["mode", "mode"],
  ["permission-mode", "permission_mode"],
  ["bridge-session", "bridge_session"],
  ["ai-title", "title"],
  ["custom-title", "title"],
  ["last-prompt", "last_prompt"],
  ["tag", "tag"],
  ["agent-name", "agent_name"],
]);
const CONVERSATION_TYPES: ReadonlySet<string> = new Set(["user", "assistant", "system", "attachment", "progress"]);

function detect(record: InputRecord): boolean {
  if (record.kind !== "json") return false;
  const v = record.value;
  const type = str(v, "type");
  if (type === undefined) return false;
  // Stream-json (`claude -p --output-format stream-json`) has `session_id` and no `parentUuid`; transcripts have both camelCase fields.
  if (Object.hasOwn(v, "parentUuid") && (str(v, "uuid") !== undefined || str(v, "sessionId") !== undefined)) return true;
  if (type === "summary") return str(v, "leafUuid") !== undefined;
  if (type === "file-history-snapshot") return obj(v, "snapshot") !== undefined;
  if (METADATA_KINDS.has(type)) return str(v, "sessionId") !== undefined;
  return (
    CONVERSATION_TYPES.has(type) &&
    str(v, "sessionId") !== undefined &&
    (bool(v, "isSidechain") !== undefined || str(v, "userType") !== undefined)
  );
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

type UsageKey = keyof Usage;
const USAGE_KEYS: readonly UsageKey[] = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens"];

/** Field-wise maximum (null = not reported). */
function maxUsage(a: Usage, b: Usage): Usage {
  const out: Record<UsageKey, number | null> = { ...a };
  for (const k of USAGE_KEYS) {
    const x = a[k];
    const y = b[k];
    out[k] = x === null ? y : y === null ? x : Math.max(x, y);
  }
  return out;
}

/** What `next` adds over `counted`, field by field, never negative. */
function usageGrowth(next: Usage, counted: Usage): Usage | undefined {
  const out: Record<UsageKey, number | null> = { ...next };
  let grew = false;
  for (const k of USAGE_KEYS) {
    const x = next[k];
    const y = counted[k];
    if (x === null) continue;
    const d = y === null ? x : Math.max(0, x - y);
    out[k] = d;
    if (d > 0) grew = true;
  }
  return grew ? out : undefined;
}

/** file.changed facts from a Write / Edit / MultiEdit `toolUseResult`. */
function fileChangeOf(result: Wire<TranscriptToolResult> | undefined): FileChange | undefined {
  const path = fieldStr(result, "filePath");
  const hunks = fieldArr(result, "structuredPatch");
  if (path === undefined || hunks === undefined) return undefined;
  const created = fieldStr(result, "type") === "create";
  const diff = unifiedDiff(path, hunks) ?? (created ? fieldStr(result, "content") : undefined);
  return diff === undefined ? { path, kind: created ? "add" : "update" } : { path, kind: created ? "add" : "update", diff };
}

function planOf(input: JsonValue | undefined): PlanItem[] | undefined {
  const wired = asWire<TranscriptToolInput>(input);
  if (fieldArr(wired, "todos") === undefined) return undefined;
  const items: PlanItem[] = [];
  for (const todo of fieldItems(wired, "todos")) {
    const text = fieldStr(todo, "content") ?? fieldStr(todo, "text") ?? fieldStr(todo, "description");
    if (text !== undefined) items.push({ text, status: planStatus(fieldStr(todo, "status")) });
  }
  return items;
}

/** The content blocks of a message, each seen as a block (undefined where an entry is not an object, so indexes stay). */
function contentBlocks(content: JsonValue | undefined): (Wire<ContentBlock> | undefined)[] {
  return (arr(content) ?? []).map((block) => asWire<ContentBlock>(block));
}

const INTERRUPTED = "[Request interrupted by user";
const COMMAND_PREFIXES = ["<command-name>", "<command-message>", "<bash-input>"];
const OUTPUT_PREFIXES = ["<local-command-stdout>", "<local-command-stderr>", "<bash-stdout>", "<bash-stderr>"];

/** The notice kind for text Claude Code wrote into a user record itself (slash commands and their output), if it is one. */
function wrapperKind(text: string): string | undefined {
  const t = text.trimStart();
  if (COMMAND_PREFIXES.some((p) => t.startsWith(p))) return "command";
  if (OUTPUT_PREFIXES.some((p) => t.startsWith(p))) return "command_output";
  return undefined;
}

function commandDetails(text: string): JsonObject | undefined {
  const name = /<command-name>([\s\S]*?)<\/command-name>/.exec(text)?.[1];
  if (name === undefined) return undefined;
  const args = /<command-args>([\s\S]*?)<\/command-args>/.exec(text)?.[1];
  return args === undefined ? { command: name } : { command: name, args };
}

/** Fields of a record that are not the conversation envelope, for notice details. */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set([
  "type",
  "uuid",
  "parentUuid",
  "logicalParentUuid",
  "isSidechain",
  "agentId",
  "sessionId",
  "session_id",
  "version",
  "cwd",
  "gitBranch",
  "entrypoint",
  "userType",
  "slug",
  "timestamp",
  "isMeta",
]);
function detailsOf(value: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const v = value[key];
    if (!ENVELOPE_KEYS.has(key) && v !== undefined) out[key] = v;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Decoder
// ---------------------------------------------------------------------------------------------

/** One session in the file: the main thread, or a subagent (sidechain). */
interface Session {
  /** The `sessionId` its events carry. */
  id: string | undefined;
  parentSessionId?: string;
  parentToolCallId?: string;
  /** What session.started will say; filled from records until it is emitted. */
  agentVersion?: string | undefined;
  model?: string | undefined;
  cwd?: string | undefined;
  permissionMode?: string | undefined;
  details: JsonObject;
  time?: string | undefined;
  line: number;
  /** session.started has gone out (or sits in the hold queue as a placeholder that will not change). */
  emitted: boolean;
  /** The usage key (message id + request id) whose records came last, for counting usage once per API response. */
  currentUsageKey?: string | undefined;
  /** How the last prompt/reply/tool activity ended, for the end of input. */
  last?: { kind: "interrupted" | "api_error" | "other"; text: string; time?: string | undefined };
  ended: boolean;
}

type Held = { readonly draft: AgentEventDraft } | { readonly session: Session; readonly line: number };

interface PendingUsage {
  usage: Usage;
  /** `costUSD`, which some transcript versions write on assistant records. */
  costUsd: number | undefined;
  model: string | undefined;
  session: Session;
  time: string | undefined;
}

function createDecoder(): DialectDecoder {
  const decoding = new ClaudeSessionStream();
  return {
    decode(record, context) {
      decoding.out = [];
      decoding.line = context.line;
      if (record.kind !== "json") return decoding.out;
      const rec = record.value;
      const envelope: Wire<ClaudeSessionRecord> = rec;
      const type = fieldStr(envelope, "type");
      const time = fieldStr(envelope, "timestamp");
      const metaKind = type === undefined ? undefined : METADATA_KINDS.get(type);
      if (metaKind !== undefined && type !== undefined) decoding.metadata(rec, type, metaKind);
      else if (type !== undefined && CONVERSATION_TYPES.has(type)) {
        const s = decoding.sessionOf(rec);
        decoding.learn(s, rec);
        let understood = true;
        if (type === "assistant") decoding.assistant(rec, s, time);
        else if (type === "user") understood = decoding.user(rec, s, time);
        else if (type === "system") decoding.system(rec, s, time);
        else if (type === "attachment") decoding.attachment(rec, s, time);
        else decoding.progress(rec, s, time);
        if (!understood) {
          context.report({ code: "unknown-record", message: `claude-session: ${type} record without message content` });
          decoding.emit(unknownRecord(rec, `${type} record without message content`));
        }
      } else {
        context.report({ code: "unknown-record", message: `claude-session: unknown record type ${JSON.stringify(type ?? null)}` });
        decoding.emit(unknownRecord(rec, `unknown record type ${JSON.stringify(type ?? null)}`));
      }
      if (decoding.held.length > 0 && (decoding.unresolved <= 0 || decoding.held.length > HOLD_LIMIT)) decoding.release();
      return decoding.out;
    },
    end() {
      decoding.out = [];
      decoding.line = 0;
      const sessions = [...(decoding.root !== undefined ? [decoding.root] : []), ...decoding.children.values()];
      for (const s of sessions) decoding.flushSessionUsage(s);
      for (const key of [...decoding.pendingUsage.keys()]) decoding.flushUsage(key);
      decoding.release();
      decoding.out.push(...decoding.state.closeAll());
      decoding.openTools.clear();
      // A transcript has no result record: a session ends only where its last turn was interrupted or failed for good.
      for (const s of sessions) {
        if (s.ended || s.last === undefined || s.last.kind === "other") continue;
        s.ended = true;
        const draft: AgentEventDraft = {
          type: "session.completed",
          status: s.last.kind === "interrupted" ? "interrupted" : "error",
          error: s.last.text,
        };
        decoding.out.push(decoding.withIds(draft, s, s.last.time));
      }
      return decoding.out;
    },
  };
}

/** One stream's decoding state, and the handlers that read and update it. */
class ClaudeSessionStream {
  readonly state = createStreamState();
  root: Session | undefined;
  readonly children = new Map<string, Session>();
  /** 1.x inline sidechains: record uuid → the subagent session it belongs to. */
  readonly chainOwner = new Map<string, Session>();
  /** Task / Agent prompts waiting for their sidechain: prompt text → tool call id. */
  readonly taskPrompts = new Map<string, string>();
  readonly childByToolCall = new Map<string, Session>();
  readonly openTools = new Set<string>();
  readonly blockCounts = new Map<string, number>();
  readonly pendingUsage = new Map<string, PendingUsage>();
  readonly countedUsage = new Map<string, { usage: Usage; costUsd: number }>();
  readonly otherSessionIds = new Set<string>();
  /** TaskCreate / TaskUpdate inputs by tool call id, and the task list they build, per session. */
  readonly taskInputs = new Map<string, { name: string; input: JsonValue | undefined }>();
  readonly taskLists = new Map<Session, { id: string; text: string; status: PlanItem["status"] }[]>();
  /** Events wait here while a started session's model is unknown (see docs: session.started carries the model). */
  readonly held: Held[] = [];
  unresolved = 0;
  out: AgentEventDraft[] = [];
  line = 0;

  emit(draft: AgentEventDraft): void {
    if (this.held.length > 0)
      this.held.push({
        draft: draft.source === undefined && this.line > 0 ? { ...draft, source: { dialect: DIALECT, line: this.line } } : draft,
      });
    else this.out.push(draft);
  }
  emitAll(drafts: readonly AgentEventDraft[]): void {
    for (const d of drafts) this.emit(d);
  }

  startedDraft(s: Session, atLine: number): AgentEventDraft {
    const draft: Record<string, JsonValue | undefined> = {
      type: "session.started",
      agent: AGENT,
      agentVersion: s.agentVersion,
      model: s.model,
      cwd: s.cwd,
      parentSessionId: s.parentSessionId,
      parentToolCallId: s.parentToolCallId,
      permissionMode: s.permissionMode,
      details: Object.keys(s.details).length > 0 ? s.details : undefined,
      sessionId: s.id,
      time: s.time,
    };
    for (const key of Object.keys(draft)) if (draft[key] === undefined) delete draft[key];
    const started = draft as unknown as AgentEventDraft;
    return atLine > 0 ? { ...started, source: { dialect: DIALECT, line: atLine } } : started;
  }

  release(): void {
    for (const item of this.held) {
      if ("draft" in item) this.out.push(item.draft);
      else {
        item.session.emitted = true;
        this.out.push(this.startedDraft(item.session, item.line));
      }
    }
    this.held.length = 0;
    this.unresolved = 0;
  }

  resolve(s: Session, model: string): void {
    if (s.model !== undefined || s.emitted) return;
    s.model = model;
    this.unresolved--;
  }

  newSession(id: string | undefined, rec: Wire<SessionKeys>): Session {
    const s: Session = { id, details: {}, line: this.line, emitted: false, ended: false };
    const time = fieldStr(rec, "timestamp");
    if (time !== undefined) s.time = time;
    this.held.push({ session: s, line: this.line });
    this.unresolved++;
    return s;
  }

  /** Fills session.started fields from a record while it has not gone out. */
  learn(s: Session, rec: Wire<TranscriptEnvelope>): void {
    if (s.emitted) return;
    s.agentVersion ??= fieldStr(rec, "version");
    s.cwd ??= fieldStr(rec, "cwd");
    s.permissionMode ??= fieldStr(rec, "permissionMode");
    s.time ??= fieldStr(rec, "timestamp");
    if (s.id === undefined && s.parentSessionId === undefined) {
      const id = fieldStr(rec, "sessionId");
      if (id !== undefined) s.id = id;
    }
    for (const key of ["gitBranch", "entrypoint", "slug", "agentId"] as const) {
      const v = fieldStr(rec, key);
      if (v !== undefined && s.details[key] === undefined && v !== "") s.details[key] = v;
    }
    const agentType = fieldStr(rec, "attributionAgent");
    if (agentType !== undefined && s.parentSessionId !== undefined) s.details.agentType ??= agentType;
  }

  rootSession(rec: Wire<SessionKeys>): Session {
    if (this.root === undefined) this.root = this.newSession(fieldStr(rec, "sessionId"), rec);
    const id = fieldStr(rec, "sessionId");
    if (id !== undefined && this.root.id !== undefined && id !== this.root.id && !this.otherSessionIds.has(id)) {
      // Claude Code may append records of a resumed session (another sessionId) to the file; we keep one root and say so.
      this.otherSessionIds.add(id);
      this.emit({
        type: "notice",
        kind: "session_id_changed",
        level: "info",
        text: `records continue with sessionId ${id}`,
        details: { sessionId: id },
        sessionId: this.root.id,
      });
    }
    return this.root;
  }

  childSession(key: string, suffix: string, rec: Wire<SessionKeys>, parentToolCallId: string | undefined): Session {
    const parentId = fieldStr(rec, "sessionId") ?? this.root?.id;
    // Transcripts repeat the parent's sessionId on subagent records; we derive one: subagent-<tool call id> (as the stream-json dialect does) when the link is known, else <sessionId>/<suffix>.
    const id = parentToolCallId !== undefined ? `subagent-${parentToolCallId}` : parentId === undefined ? suffix : `${parentId}/${suffix}`;
    const s = this.newSession(id, rec);
    if (parentId !== undefined) s.parentSessionId = parentId;
    if (parentToolCallId !== undefined) {
      s.parentToolCallId = parentToolCallId;
      this.childByToolCall.set(parentToolCallId, s);
    }
    this.children.set(key, s);
    return s;
  }

  /** The session a conversation record belongs to: the main thread, or a subagent. */
  sessionOf(rec: Wire<TranscriptEnvelope>): Session {
    if (fieldBool(rec, "isSidechain") !== true) return this.rootSession(rec);
    const uuid = fieldStr(rec, "uuid");
    const agentId = fieldStr(rec, "agentId");
    let s: Session | undefined;
    if (agentId !== undefined) {
      // Claude Code 2.x writes each subagent to its own file with `agentId`; the link to the parent's tool call is only in the .meta.json beside it.
      s = this.children.get(`agent:${agentId}`) ?? this.childSession(`agent:${agentId}`, `agent-${agentId}`, rec, undefined);
    } else {
      // Claude Code 1.x writes sidechains into the main file; we follow parentUuid and link the chain to the Task call whose prompt it starts with.
      const parent = fieldStr(rec, "parentUuid");
      s = parent === undefined ? undefined : this.chainOwner.get(parent);
      if (s === undefined) {
        const prompt = promptOf(rec);
        const toolCallId = prompt === undefined ? undefined : this.taskPrompts.get(prompt);
        if (prompt !== undefined && toolCallId !== undefined) this.taskPrompts.delete(prompt);
        const chainKey = uuid ?? parent ?? this.state.nextId("sidechain");
        s = this.childSession(`chain:${chainKey}`, `sidechain-${chainKey}`, rec, toolCallId);
      }
    }
    if (uuid !== undefined && agentId === undefined) this.chainOwner.set(uuid, s);
    return s;
  }

  /**
   * Claude Code writes one record per content block and repeats the response's usage on each, growing as it streams;
   * like Claude Code's own accounting we count each response (message id + request id) once, with its last record's
   * figures. A response whose records come back after its usage went out adds only what grew (usage deltas never go negative).
   */
  flushUsage(key: string): void {
    const pending = this.pendingUsage.get(key);
    if (pending === undefined) return;
    this.pendingUsage.delete(key);
    const counted = this.countedUsage.get(key);
    const usage = counted === undefined ? pending.usage : usageGrowth(pending.usage, counted.usage);
    const cost = pending.costUsd === undefined ? undefined : pending.costUsd - (counted?.costUsd ?? 0);
    this.countedUsage.set(key, {
      usage: counted === undefined ? pending.usage : maxUsage(counted.usage, pending.usage),
      costUsd: Math.max(counted?.costUsd ?? 0, pending.costUsd ?? 0),
    });
    const costUsd = cost !== undefined && cost > 0 ? cost : undefined;
    if (usage === undefined && costUsd === undefined) return;
    const draft: AgentEventDraft = { type: "usage", usage: usage ?? emptyUsage(), scope: "delta" };
    this.emit(
      this.withIds(
        { ...draft, ...(pending.model !== undefined ? { model: pending.model } : {}), ...(costUsd !== undefined ? { costUsd } : {}) },
        pending.session,
        pending.time,
      ),
    );
  }

  flushSessionUsage(s: Session): void {
    if (s.currentUsageKey !== undefined) this.flushUsage(s.currentUsageKey);
    s.currentUsageKey = undefined;
  }

  withIds<T extends AgentEventDraft>(draft: T, s: Session, time: string | undefined): T {
    let d = draft;
    if (s.id !== undefined) d = { ...d, sessionId: s.id };
    if (time !== undefined) d = { ...d, time };
    return d;
  }

  notice(s: Session, kind: string, text: string, time: string | undefined, details?: JsonObject, level: "info" | "warning" = "info"): void {
    const draft: AgentEventDraft =
      details === undefined ? { type: "notice", kind, level, text } : { type: "notice", kind, level, text, details };
    this.emit(this.withIds(draft, s, time));
  }

  // --- assistant -----------------------------------------------------------------------------

  assistant(rec: Wire<AssistantRecord>, s: Session, time: string | undefined): void {
    const message = fieldObj(rec, "message");
    const uuid = fieldStr(rec, "uuid");
    const messageId = fieldStr(message, "id") ?? uuid ?? this.state.nextId("message");
    const model = fieldStr(message, "model");
    const rawContent = field(message, "content");
    const rawBlocks: JsonValue[] = typeof rawContent === "string" ? [{ type: "text", text: rawContent }] : (arr(rawContent) ?? []);
    const blocks = contentBlocks(rawBlocks);
    const options = { sessionId: s.id, time };

    if (fieldBool(rec, "isApiErrorMessage") === true) {
      // Claude Code writes an API failure as a synthetic assistant message (`isApiErrorMessage`, `error`, `apiErrorStatus`); we emit an error, not assistant text.
      const text = contentText(rawBlocks) ?? "";
      const code = fieldStr(rec, "error");
      const status = fieldNum(rec, "apiErrorStatus");
      const message = text !== "" ? text : (code ?? "API error");
      this.emit(
        this.withIds(
          code === undefined ? { type: "error", scope: "api", message } : { type: "error", scope: "api", message, code },
          s,
          time,
        ),
      );
      if (code === "rate_limit" || status === 429) {
        const details: JsonObject = { message };
        if (code !== undefined) details.error = code;
        if (status !== undefined) details.apiErrorStatus = status;
        this.emit(this.withIds({ type: "rate_limit", status: "rejected", details }, s, time));
      }
      s.last = { kind: "api_error", text: message, time };
      return;
    }
    if (model === SYNTHETIC_MODEL) {
      // Claude Code writes bookkeeping replies ("No response requested.") as model "<synthetic>"; we keep them as notices, not model output.
      this.notice(s, "synthetic_message", contentText(rawBlocks) ?? "", time, { messageId });
      s.last = { kind: "other", text: "" };
      return;
    }
    if (model !== undefined) this.resolve(s, model);

    const usage = fieldObj(message, "usage");
    if (usage !== undefined) {
      // One request per key, the rule `usage` counts by (src/model/usage-keys.ts).
      const key = claudeUsageKey(fieldStr(message, "id"), fieldStr(rec, "requestId"), uuid) ?? messageId;
      if (s.currentUsageKey !== undefined && s.currentUsageKey !== key) this.flushUsage(s.currentUsageKey);
      s.currentUsageKey = key;
      const figures = anthropicUsage(usage);
      const costUsd = fieldNum(rec, "costUSD");
      const pending = this.pendingUsage.get(key);
      if (pending === undefined) this.pendingUsage.set(key, { usage: figures, costUsd, model, session: s, time });
      else {
        // The last record of a response carries its final figures.
        pending.usage = figures;
        pending.costUsd = costUsd ?? pending.costUsd;
        pending.time = time ?? pending.time;
      }
    }

    for (const block of blocks) {
      const type = fieldStr(block, "type");
      const index = this.blockCounts.get(messageId) ?? 0;
      this.blockCounts.set(messageId, index + 1);
      const blockId = `${messageId}#${index}`;
      switch (type) {
        case "text":
          this.emitAll(this.state.complete(blockId, fieldStr(block, "text") ?? "", "assistant", "text", options));
          break;
        case "thinking": {
          const text = fieldStr(block, "thinking") ?? "";
          const signature = fieldStr(block, "signature");
          // Claude Code 2.1.x writes thinking as "" with only a signature (hidden thinking); we emit redacted_reasoning.
          const kind: MessageKind = text === "" ? "redacted_reasoning" : "reasoning";
          this.emitAll(this.state.complete(blockId, text, "assistant", kind, { ...options, signature }));
          break;
        }
        case "redacted_thinking":
          this.emitAll(
            this.state.complete(blockId, "", "assistant", "redacted_reasoning", { ...options, signature: fieldStr(block, "data") }),
          );
          break;
        case "tool_use":
        case "server_tool_use":
          this.toolStarted(block, s, time);
          break;
        default: {
          const toolUseId = fieldStr(block, "tool_use_id");
          if (type?.endsWith("_tool_result") && toolUseId !== undefined) {
            // Server tools (web search) answer inside the assistant message.
            this.toolCompleted(
              s,
              toolUseId,
              field(block, "content"),
              fieldStr(asWire<ContentBlock>(field(block, "content")), "type")?.endsWith("_error") === true,
              undefined,
              time,
            );
          } else {
            this.notice(s, "content_block", `[${type ?? "unknown"} block]`, time, { messageId, block: block ?? null });
          }
        }
      }
    }
    s.last = { kind: "other", text: "" };
  }

  toolStarted(block: Wire<ContentBlock> | undefined, s: Session, time: string | undefined): void {
    const toolCallId = fieldStr(block, "id") ?? this.state.nextId("tool");
    const name = fieldStr(block, "name") ?? "unknown";
    const input = field(block, "input");
    const { kind, server } = classifyTool(name, fieldStr(block, "type"));
    const description = fieldStr(asWire<TranscriptToolInput>(input), "description");
    this.state.toolStarted(toolCallId, name, s.id);
    this.openTools.add(toolCallId);
    const draft: AgentEventDraft = { type: "tool.started", toolCallId, name, kind };
    this.emit(
      this.withIds(
        {
          ...draft,
          ...(input !== undefined ? { input } : {}),
          ...(server !== undefined ? { server } : {}),
          ...(description !== undefined ? { description } : {}),
        },
        s,
        time,
      ),
    );
    if (name === "TodoWrite") {
      const items = planOf(input);
      if (items !== undefined) this.emit(this.withIds({ type: "plan.updated", items }, s, time));
    }
    if (name === "TaskCreate" || name === "TaskUpdate") this.taskInputs.set(toolCallId, { name, input });
    if (kind === "subagent") {
      const prompt = fieldStr(asWire<TranscriptToolInput>(input), "prompt");
      if (prompt !== undefined) this.taskPrompts.set(prompt, toolCallId);
    }
  }

  toolCompleted(
    s: Session,
    toolCallId: string,
    content: JsonValue | undefined,
    isError: boolean,
    toolUseResult: JsonValue | undefined,
    time: string | undefined,
  ): void {
    const output = contentText(content);
    const name = this.state.toolName(toolCallId);
    const result = asWire<TranscriptToolResult>(toolUseResult);
    let exitCode = fieldNum(result, "exitCode");
    if (exitCode === undefined && isError && name !== undefined && classifyTool(name).kind === "command") {
      // Claude Code writes a failed Bash call as the text "Exit code N\n…" (and toolUseResult "Error: Exit code N\n…"); we read N.
      const match = /^(?:Error: )?Exit code (\d+)/.exec(output ?? str(toolUseResult) ?? "");
      if (match?.[1] !== undefined) exitCode = Number(match[1]);
    }
    const seconds = fieldNum(result, "durationSeconds");
    const durationMs =
      fieldNum(result, "durationMs") ??
      fieldNum(result, "totalDurationMs") ??
      (seconds === undefined ? undefined : Math.round(seconds * 1000));

    const child = this.childByToolCall.get(toolCallId);
    if (child !== undefined && !child.ended) {
      this.childByToolCall.delete(toolCallId);
      this.flushSessionUsage(child);
      child.ended = true;
      const completed: Record<string, JsonValue | undefined> = {
        type: "session.completed",
        status: isError ? "error" : "success",
        error: isError ? (output ?? "subagent failed") : undefined,
        finalText: !isError && output !== undefined && output !== "" ? output : undefined,
        durationMs: durationMs !== undefined && durationMs >= 0 ? durationMs : undefined,
      };
      const details: JsonObject = {};
      for (const key of ["totalTokens", "totalToolUseCount", "agentId"] as const) {
        const v = field(result, key);
        if (v !== undefined) details[key] = v;
      }
      if (Object.keys(details).length > 0) completed.details = details;
      for (const key of Object.keys(completed)) if (completed[key] === undefined) delete completed[key];
      this.emit(this.withIds(completed as unknown as AgentEventDraft, child, time));
    }

    this.state.toolCompleted(toolCallId);
    this.openTools.delete(toolCallId);
    const draft: Record<string, JsonValue | undefined> = {
      type: "tool.completed",
      toolCallId,
      name,
      output,
      result,
      exitCode: exitCode !== undefined && Number.isInteger(exitCode) ? exitCode : undefined,
      isError,
      durationMs: durationMs !== undefined && durationMs >= 0 ? durationMs : undefined,
    };
    for (const key of Object.keys(draft)) if (draft[key] === undefined) delete draft[key];
    this.emit(this.withIds(draft as unknown as AgentEventDraft, s, time));
    if (!isError) {
      const change = fileChangeOf(result);
      if (change !== undefined)
        this.emit(this.withIds({ type: "file.changed", changes: [change], toolCallId, status: "success" }, s, time));
      const task = this.taskInputs.get(toolCallId);
      if (task !== undefined) this.taskListChange(s, task.name, task.input, output, toolUseResult, time);
    }
    this.taskInputs.delete(toolCallId);
  }

  /** TaskCreate / TaskUpdate change one item at a time (2.1.x); we keep the list and emit it whole, as the stream-json dialect does. */
  taskListChange(
    s: Session,
    name: string,
    input: JsonValue | undefined,
    output: string | undefined,
    rich: JsonValue | undefined,
    time: string | undefined,
  ): void {
    const list = this.taskLists.get(s) ?? [];
    this.taskLists.set(s, list);
    if (name === "TaskCreate") {
      const text = fieldStr(asWire<TranscriptToolInput>(input), "subject") ?? fieldStr(asWire<TranscriptToolInput>(input), "description");
      if (text === undefined) return;
      const id =
        fieldStr(fieldObj(asWire<TranscriptToolResult>(rich), "task"), "id") ?? /#(\w+)/.exec(output ?? "")?.[1] ?? String(list.length + 1);
      list.push({ id, text, status: planStatus(fieldStr(asWire<TranscriptToolInput>(input), "status")) });
    } else {
      const item = list.find((t) => t.id === fieldStr(asWire<TranscriptToolInput>(input), "taskId"));
      if (item === undefined) return;
      const status = fieldStr(asWire<TranscriptToolInput>(input), "status");
      if (status === "deleted") list.splice(list.indexOf(item), 1);
      else {
        if (status !== undefined) item.status = planStatus(status);
        item.text = fieldStr(asWire<TranscriptToolInput>(input), "subject") ?? item.text;
      }
    }
    this.emit(this.withIds({ type: "plan.updated", items: list.map((t) => ({ text: t.text, status: t.status })) }, s, time));
  }

  // --- user ----------------------------------------------------------------------------------

  userText(rec: Wire<UserRecord>, s: Session, text: string, messageId: string, time: string | undefined): void {
    if (text.startsWith(INTERRUPTED)) {
      // Claude Code writes "[Request interrupted by user]" (or "... for tool use]") as a user text; we emit a notice and remember it for the end.
      this.notice(s, "interrupted", text, time, undefined, "warning");
      s.last = { kind: "interrupted", text, time };
      return;
    }
    if (fieldBool(rec, "isCompactSummary") === true) return this.notice(s, "compact_summary", text, time);
    const wrapper = wrapperKind(text);
    if (wrapper !== undefined) return this.notice(s, wrapper, text, time, wrapper === "command" ? commandDetails(text) : undefined);
    // Claude Code writes its own texts (caveats, skill bodies, "Continue from where you left off.") as isMeta user records; we keep them as notices.
    if (fieldBool(rec, "isMeta") === true) {
      const source = fieldStr(rec, "sourceToolUseID");
      return this.notice(s, "meta", text, time, source === undefined ? undefined : { sourceToolUseID: source });
    }
    this.emitAll(this.state.complete(messageId, text, "user", "text", { sessionId: s.id, time }));
    s.last = { kind: "other", text: "" };
  }

  user(rec: Wire<UserRecord>, s: Session, time: string | undefined): boolean {
    const content = field(fieldObj(rec, "message"), "content");
    const uuid = fieldStr(rec, "uuid") ?? this.state.nextId("user");
    if (typeof content === "string") {
      this.userText(rec, s, content, uuid, time);
      return true;
    }
    if (arr(content) === undefined) return false;
    const blocks = contentBlocks(content);
    const results = blocks.filter((b) => fieldStr(b, "type") === "tool_result").length;
    const toolUseResult = field(rec, "toolUseResult");
    blocks.forEach((block, i) => {
      const type = fieldStr(block, "type");
      if (type === "text") this.userText(rec, s, fieldStr(block, "text") ?? "", i === 0 ? uuid : `${uuid}:${i}`, time);
      else if (type === "tool_result") {
        const toolCallId = fieldStr(block, "tool_use_id");
        if (toolCallId === undefined) this.notice(s, "content_block", "[tool_result without tool_use_id]", time, { block: block ?? null });
        else {
          // toolUseResult belongs to the record, so it is only attached when the record holds one tool_result.
          this.toolCompleted(
            s,
            toolCallId,
            field(block, "content"),
            fieldBool(block, "is_error") === true,
            results === 1 ? toolUseResult : undefined,
            time,
          );
          s.last = { kind: "other", text: "" };
        }
      } else if (type === "image")
        this.notice(s, "image", "[image]", time, { mediaType: fieldStr(fieldObj(block, "source"), "media_type") ?? null });
      else this.notice(s, "content_block", `[${type ?? "unknown"} block]`, time, { block: block ?? null });
    });
    return true;
  }

  // --- system, attachment, progress, metadata -------------------------------------------------

  system(rec: Wire<SystemRecord>, s: Session, time: string | undefined): void {
    const subtype = fieldStr(rec, "subtype") ?? "system";
    const content = fieldStr(rec, "content");
    const level = fieldStr(rec, "level");
    switch (subtype) {
      case "api_error": {
        // Claude Code 2.x logs each retried API failure as system/api_error (retryAttempt, maxRetries, retryInMs).
        const error = fieldObj(rec, "error");
        const status = fieldNum(error, "status");
        const message =
          fieldStr(error, "message") ??
          fieldStr(error, "formatted") ??
          content ??
          (status !== undefined ? `API error ${status}` : "API error");
        const attempt = fieldNum(rec, "retryAttempt");
        if (attempt !== undefined && Number.isInteger(attempt) && attempt >= 0) {
          const maxAttempts = fieldNum(rec, "maxRetries");
          const delayMs = fieldNum(rec, "retryInMs");
          const draft: AgentEventDraft = { type: "retry", attempt, error: message };
          this.emit(
            this.withIds(
              {
                ...draft,
                ...(maxAttempts !== undefined && Number.isInteger(maxAttempts) && maxAttempts >= 0 ? { maxAttempts } : {}),
                ...(delayMs !== undefined && delayMs >= 0 ? { delayMs } : {}),
              },
              s,
              time,
            ),
          );
        } else {
          this.emit(
            this.withIds({ type: "error", scope: "api", message, ...(status !== undefined ? { code: String(status) } : {}) }, s, time),
          );
        }
        if (status === 429)
          this.emit(this.withIds({ type: "rate_limit", status: "rejected", details: { message, apiErrorStatus: status } }, s, time));
        return;
      }
      case "turn_duration": {
        const values: JsonObject = {};
        for (const key of ["durationMs", "messageCount"] as const) {
          const v = fieldNum(rec, key);
          if (v !== undefined) values[key] = v;
        }
        this.emit(this.withIds({ type: "metric", name: "turn_duration", values }, s, time));
        return;
      }
      case "stop_hook_summary": {
        const errors = fieldArr(rec, "hookErrors") ?? [];
        const prevented = fieldBool(rec, "preventedContinuation") === true;
        const count = fieldNum(rec, "hookCount");
        const stopReason = fieldStr(rec, "stopReason");
        const text = `Stop hooks${count !== undefined ? ` (${count})` : ""} ran${errors.length > 0 ? ` with ${errors.length} error(s)` : ""}${prevented ? `; continuation prevented${stopReason ? `: ${stopReason}` : ""}` : ""}`;
        this.notice(s, "hook", text, time, detailsOf(rec), errors.length > 0 || prevented ? "warning" : "info");
        return;
      }
      default: {
        // compact_boundary, microcompact_boundary, local_command, informational, away_summary, ... are notices.
        const kind = subtype === "local_command" ? (wrapperKind(content ?? "") ?? "command") : subtype;
        this.notice(s, kind, content ?? subtype, time, detailsOf(rec), level === "warning" || level === "error" ? "warning" : "info");
      }
    }
  }

  attachment(rec: Wire<AttachmentRecord>, s: Session, time: string | undefined): void {
    const a = fieldObj(rec, "attachment") ?? {};
    const type = fieldStr(a, "type") ?? "attachment";
    if (type === "goal_status") {
      const condition = fieldStr(a, "condition") ?? "";
      // Claude Code 2.1.153 writes `/goal clear` as met:true plus sentinel:true with the old condition; we say "cleared", not "met".
      const outcome = fieldBool(a, "sentinel") === true ? "cleared" : fieldBool(a, "met") === true ? "met" : "not met";
      const reason = fieldStr(a, "reason");
      this.notice(s, "goal_status", `Goal ${outcome}: ${condition}${reason !== undefined ? ` (${reason})` : ""}`, time, a);
      return;
    }
    const added = fieldArr(a, "addedTypes")?.filter((x): x is string => typeof x === "string");
    const text = fieldStr(a, "content") ?? fieldStr(a, "stdout") ?? (added !== undefined ? `agent types added: ${added.join(", ")}` : type);
    const failed = type.includes("error") || type.includes("blocking") || (fieldNum(a, "exitCode") ?? 0) !== 0;
    this.notice(s, type.startsWith("hook_") ? "hook" : type, text, time, a, failed ? "warning" : "info");
  }

  progress(rec: Wire<ProgressRecord>, s: Session, time: string | undefined): void {
    const data = fieldObj(rec, "data") ?? {};
    const type = fieldStr(data, "type") ?? "progress";
    const toolCallId = fieldStr(rec, "parentToolUseID");
    if (type === "bash_progress" && toolCallId !== undefined && this.openTools.has(toolCallId)) {
      // Claude Code 2.0.x bash_progress carries the current tail of the output (a snapshot); we pass it as it is.
      const output = fieldStr(data, "output");
      const seconds = fieldNum(data, "elapsedTimeSeconds");
      const draft: AgentEventDraft = { type: "tool.progress", toolCallId };
      this.emit(
        this.withIds(
          {
            ...draft,
            ...(output !== undefined ? { output } : {}),
            ...(seconds !== undefined && seconds >= 0 ? { elapsedMs: seconds * 1000 } : {}),
          },
          s,
          time,
        ),
      );
      return;
    }
    const details: JsonObject = { data };
    if (toolCallId !== undefined) details.parentToolUseID = toolCallId;
    this.notice(s, type === "hook_progress" ? "hook" : type, fieldStr(data, "hookName") ?? fieldStr(data, "output") ?? type, time, details);
  }

  metadata(rec: Wire<MetadataRecord>, type: string, kind: string): void {
    const s = this.rootSession(rec);
    this.learn(s, rec);
    const time = fieldStr(rec, "timestamp") ?? fieldStr(fieldObj(rec, "snapshot"), "timestamp");
    let text: string;
    switch (type) {
      case "summary":
        text = fieldStr(rec, "summary") ?? "";
        break;
      case "file-history-snapshot": {
        const files = Object.keys(fieldObj(fieldObj(rec, "snapshot"), "trackedFileBackups") ?? {});
        text = `file history snapshot${fieldBool(rec, "isSnapshotUpdate") === true ? " update" : ""}: ${files.length} file(s)`;
        break;
      }
      case "queue-operation":
        text = [fieldStr(rec, "operation"), fieldStr(rec, "content")].filter((x) => x !== undefined).join(": ");
        break;
      case "mode":
        text = `mode: ${fieldStr(rec, "mode") ?? ""}`;
        break;
      case "permission-mode":
        text = `permission mode: ${fieldStr(rec, "permissionMode") ?? ""}`;
        break;
      case "bridge-session":
        text = `bridge session ${fieldStr(rec, "bridgeSessionId") ?? ""}`;
        break;
      default:
        text =
          fieldStr(rec, "aiTitle") ??
          fieldStr(rec, "customTitle") ??
          fieldStr(rec, "lastPrompt") ??
          fieldStr(rec, "tag") ??
          fieldStr(rec, "agentName") ??
          type;
    }
    this.notice(s, kind, text, time, detailsOf(rec));
  }
}

/** Claude Code session transcripts (~/.claude/projects/<project>/<session>.jsonl and subagents/agent-<id>.jsonl). */
export const claudeSession: Dialect = {
  name: DIALECT,
  description: "Claude Code session transcripts (~/.claude/projects/<project>/<session>.jsonl)",
  detect,
  createDecoder,
};

/** The prompt text of a sidechain's first user record (string content or its first text block). */
function promptOf(value: JsonObject): string | undefined {
  const rec = asWire<UserRecord>(value);
  if (fieldStr(rec, "type") !== "user") return undefined;
  const content = field(fieldObj(rec, "message"), "content");
  if (typeof content === "string") return content;
  return fieldStr(contentBlocks(content)[0], "text");
}
