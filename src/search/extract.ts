/**
 * One session log → what the index holds of it: each session's facets and its texts, one per event and field. The
 * file is read through the normal reader into the event model (the same reading `html` and `summary` do, secrets
 * redacted by the same stage), so a store another reader learns is searchable by itself.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import type { AgentEvent, JsonValue } from "../model/events.ts";
import { createEventReader } from "../pipeline/create-event-reader.ts";
import { namesStore, storeInput } from "../usage/discover.ts";
import type { SearchField, SearchStatus } from "./types.ts";

/**
 * What one tool output keeps in the index: its first 8 KiB. Outputs are most of a log's bytes (file dumps, test
 * runs, listings); their start says what they are, and the index stays a fraction of the logs (docs/search.md).
 */
const OUTPUT_CAP = 8 * 1024;
/** What any other text keeps: a prompt or answer longer than this is cut (a pasted log, a generated file). */
const TEXT_CAP = 64 * 1024;

const CHUNK_BYTES = 1024 * 1024;

/** One indexed text. */
interface ExtractedDoc {
  readonly seq: number;
  readonly line: number | null;
  /** ms since the epoch, or null when the event has no time. */
  readonly time: number | null;
  readonly field: SearchField;
  readonly tool: string | null;
  readonly text: string;
}

/** A file a tool call touched (a read, an edit, a write, a patch). */
interface TouchedFile {
  readonly path: string;
  readonly tool: string | null;
  readonly seq: number;
}

/** One session of a log (a log may hold several: a resumed or concatenated input). */
export interface ExtractedSession {
  readonly sessionId: string | null;
  /** The agent as the log's dialect names it (`claude-code`), when it said. */
  readonly agentProduct: string | null;
  readonly project: string | null;
  readonly model: string | null;
  readonly start: number | null;
  readonly end: number | null;
  readonly status: SearchStatus;
  readonly docs: ExtractedDoc[];
  readonly touched: TouchedFile[];
}

/** Keys of a tool's input whose string value is a file path (Claude, Codex, Gemini and the others' names). */
const PATH_KEYS = new Set([
  "file_path",
  "filepath",
  "filePath",
  "path",
  "notebook_path",
  "absolute_path",
  "target_file",
  "file",
  "filename",
]);

class SessionCollector {
  sessionId: string | null = null;
  agentProduct: string | null = null;
  project: string | null = null;
  model: string | null = null;
  start: number | null = null;
  end: number | null = null;
  status: SearchStatus = "unfinished";
  readonly docs: ExtractedDoc[] = [];
  readonly touched: TouchedFile[] = [];
  /** Each tool call's name and the seq of its start, by id. */
  readonly toolCalls = new Map<string, { readonly name: string; readonly seq: number }>();

  add(event: AgentEvent): void {
    const time = timeOf(event.time);
    if (time !== null) {
      if (this.start === null || time < this.start) this.start = time;
      if (this.end === null || time > this.end) this.end = time;
    }
    this.sessionId ??= event.sessionId ?? null;
    switch (event.type) {
      case "session.started":
        if (event.parentSessionId !== undefined) return;
        this.agentProduct ??= event.agent ?? null;
        this.model ??= event.model ?? null;
        this.project ??= event.cwd ?? null;
        return;
      case "session.completed":
        this.status = event.status;
        return;
      case "usage":
        this.model ??= event.model ?? null;
        return;
      case "message.completed":
        return this.message(event, time);
      case "tool.started":
        return this.toolStarted(event, time);
      case "tool.completed": {
        const tool = event.name ?? this.toolCalls.get(event.toolCallId)?.name ?? null;
        this.doc(event, time, "output", tool, event.output ?? "", OUTPUT_CAP);
        return;
      }
      case "file.changed": {
        // A change a tool call made is that call's: its input is indexed already, the paths count as its touches.
        const call = event.toolCallId === undefined ? undefined : this.toolCalls.get(event.toolCallId);
        const seq = call?.seq ?? event.seq;
        for (const change of event.changes) {
          this.touched.push({ path: change.path, tool: call?.name ?? null, seq });
          if (change.newPath !== undefined) this.touched.push({ path: change.newPath, tool: call?.name ?? null, seq });
        }
        if (call === undefined) {
          const diffs = event.changes.map((change) => `${change.path}\n${change.diff ?? ""}`).join("\n");
          this.doc(event, time, "input", null, diffs, TEXT_CAP);
        }
        return;
      }
      case "error":
        this.doc(event, time, "error", null, event.message, TEXT_CAP);
        return;
      default:
        return;
    }
  }

  private message(event: AgentEvent & { type: "message.completed" }, time: number | null): void {
    if (event.kind === "redacted_reasoning") return;
    const field: SearchField | undefined =
      event.kind === "reasoning" ? "reasoning" : event.role === "user" ? "prompt" : event.role === "assistant" ? "answer" : undefined;
    if (field !== undefined) this.doc(event, time, field, null, event.text, TEXT_CAP);
  }

  private toolStarted(event: AgentEvent & { type: "tool.started" }, time: number | null): void {
    this.toolCalls.set(event.toolCallId, { name: event.name, seq: event.seq });
    const strings: string[] = [];
    const paths: string[] = [];
    if (event.input !== undefined) collectStrings(event.input, strings, paths, undefined);
    for (const path of paths) this.touched.push({ path, tool: event.name, seq: event.seq });
    this.doc(event, time, "input", event.name, strings.join("\n"), TEXT_CAP);
  }

  private doc(event: AgentEvent, time: number | null, field: SearchField, tool: string | null, text: string, cap: number): void {
    if (text === "" && tool === null) return;
    this.docs.push({
      seq: event.seq,
      line: event.source?.line ?? null,
      time,
      field,
      tool,
      text: text.length > cap ? text.slice(0, cap) : text,
    });
  }

  finish(): ExtractedSession {
    const { sessionId, agentProduct, project, model, start, end, status, docs, touched } = this;
    return { sessionId, agentProduct, project, model, start, end, status, docs, touched };
  }
}

/** Every string of a tool's input (commands, paths, patterns, contents), and the file paths among them. */
function collectStrings(value: JsonValue, into: string[], paths: string[], key: string | undefined): void {
  if (typeof value === "string") {
    into.push(value);
    if (key !== undefined && PATH_KEYS.has(key) && value !== "" && !value.includes("\n")) paths.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectStrings(item, into, paths, key);
  } else if (value !== null && typeof value === "object" && !("toJSON" in value && typeof value.toJSON === "function")) {
    for (const [name, item] of Object.entries(value)) collectStrings(item as JsonValue, into, paths, name);
  }
}

function timeOf(time: string | undefined): number | null {
  if (time === undefined) return null;
  const ms = Date.parse(time);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * Reads one log (a regular file, opened without following a link or waiting on a FIFO) into its sessions, secrets
 * redacted. Throws the system's error when the file cannot be read.
 */
export function extractSessions(path: string): ExtractedSession[] {
  const sessions: SessionCollector[] = [new SessionCollector()];
  const reader = createEventReader(
    {
      onEvent: (event) => (sessions[sessions.length - 1] as SessionCollector).add(event),
      onSessionBoundary: () => {
        sessions.push(new SessionCollector());
      },
    },
    { dialect: "auto", redact: true },
  );
  if (namesStore(path)) feedStore(path, reader);
  else feedFile(path, reader);
  reader.end();
  return sessions.map((session) => session.finish()).filter((session) => session.docs.length > 0 || session.sessionId !== null);
}

/** A session kept in a store (`<database>#<id>`, src/usage/store.ts): its lines in its session dialect. */
function feedStore(ref: string, reader: { feed(chunk: string): void }): void {
  const input = storeInput(ref);
  if (input === undefined || "failed" in input) {
    throw Object.assign(new Error(input?.failed ?? "not a session store"), { code: input?.failed ?? "not a session store" });
  }
  for (const line of input.lines) reader.feed(`${line}\n`);
}

function feedFile(path: string, reader: { feed(chunk: Uint8Array): void }): void {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw Object.assign(new Error("not a regular file"), { code: "not a regular file" });
    // A fresh buffer per chunk (the reader may keep a view of the last line's start), no larger than the file: most
    // logs are small, and zeroing a large buffer for each cost more than reading them.
    let total = 0;
    for (;;) {
      // Past the size the file had when opened (a log still written), a small read first says whether there is more.
      const size = total >= stat.size ? 4096 : Math.min(CHUNK_BYTES, stat.size - total);
      const buffer = Buffer.allocUnsafe(size);
      const read = readSync(fd, buffer, 0, size, null);
      if (read === 0) break;
      total += read;
      reader.feed(buffer.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
}
