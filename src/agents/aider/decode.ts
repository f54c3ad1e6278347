// Source: `aider --no-pretty --yes-always -m "<prompt>"` stdout, and `.aider.chat.history.md` transcripts; versions and quirks: docs/dialects/aider.md
import type { AgentEventDraft, JsonObject } from "../../model/events.ts";
import { usageFrom } from "../../model/usage.ts";
import type { Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { compact } from "../../dialect/json.ts";
import { createStreamState } from "../../dialect/messages.ts";

/**
 * Aider has no JSON mode: these are the plain-text lines it prints (aider/coders/base_coder.py, aider/repo.py),
 * as they appear on stdout or, prefixed with `> `, in `.aider.chat.history.md` (where `#### ` lines are the user's).
 */
type AiderLine =
  | { kind: "banner"; version: string }
  | { kind: "model"; model: string; editFormat: string | undefined }
  | { kind: "banner-detail"; key: string; value: string }
  | { kind: "launch"; command: string }
  | { kind: "chat-started"; at: string }
  | { kind: "applied"; path: string }
  | { kind: "failed-edit"; path: string }
  | { kind: "commit"; hash: string; message: string }
  | {
      kind: "tokens";
      sent: number;
      received: number;
      cacheWrite: number | undefined;
      cacheHit: number | undefined;
      messageUsd: number | undefined;
      sessionUsd: number | undefined;
    };

const BANNER = /^Aider v(\d+\.\d+\S*)/;
const MODEL = /^(?:Main model|Model): (\S+)(?: with (\S+) edit format)?/;
const BANNER_DETAIL = /^(Weak model|Editor model|Git repo|Repo-map|Cur working dir|Multiline mode|VSCode terminal detected)[:,]? ?(.*)$/;
const LAUNCH = /^\$ (aider(?:\s.*)?)$/;
const CHAT_STARTED = /^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})/;
const APPLIED = /^Applied edit to (.+)$/;
const FAILED_EDIT = /^Failed to apply edit to (.+)$/;
const COMMIT = /^Commit ([0-9a-f]{7,40}) (.*)$/;
const TOKENS = /^Tokens: (.+?) received\.(?: Cost: \$([\d.,]+) message, \$([\d.,]+) session\.)?/;
/** Banner line labels → `session.started.details` keys. */
const DETAIL_KEYS: Record<string, string> = {
  "Weak model": "weakModel",
  "Editor model": "editorModel",
  "Git repo": "gitRepo",
  "Repo-map": "repoMap",
  "Cur working dir": "cwd",
  "Multiline mode": "multilineMode",
  "VSCode terminal detected": "vscodeTerminal",
};
/** Website transcripts wrap the chat in HTML (`<div class="chat-transcript" markdown="1">`). */
const MARKUP = /^<\/?div\b[^>]*>$/;

/** `1.2k` → 1200, `345` → 345, `1.1M` → 1100000 (Aider rounds: these are its figures, not exact counts). */
function tokenCount(text: string): number | undefined {
  const m = /^([\d.,]+)([kKmM]?)$/.exec(text.trim());
  if (m === null) return undefined;
  const n = Number((m[1] as string).replace(/,/g, ""));
  if (!Number.isFinite(n)) return undefined;
  const scale = m[2] === "k" || m[2] === "K" ? 1e3 : m[2] === "m" || m[2] === "M" ? 1e6 : 1;
  return Math.round(n * scale);
}

/** Classifies one line of Aider's own output (without the `> ` of the history file). */
function classify(line: string): AiderLine | undefined {
  let m = BANNER.exec(line);
  if (m !== null) return { kind: "banner", version: m[1] as string };
  m = MODEL.exec(line);
  if (m !== null) return { kind: "model", model: m[1] as string, editFormat: m[2] };
  m = BANNER_DETAIL.exec(line);
  if (m !== null) return { kind: "banner-detail", key: m[1] as string, value: (m[2] as string).trim() };
  m = LAUNCH.exec(line);
  if (m !== null) return { kind: "launch", command: m[1] as string };
  m = CHAT_STARTED.exec(line);
  if (m !== null) return { kind: "chat-started", at: m[1] as string };
  m = APPLIED.exec(line);
  if (m !== null) return { kind: "applied", path: (m[1] as string).trim() };
  m = FAILED_EDIT.exec(line);
  if (m !== null) return { kind: "failed-edit", path: (m[1] as string).trim() };
  m = COMMIT.exec(line);
  if (m !== null) return { kind: "commit", hash: m[1] as string, message: m[2] as string };
  m = TOKENS.exec(line);
  if (m !== null) {
    const parts = new Map<string, number>();
    for (const part of `${m[1] as string} received`.split(/,\s*/)) {
      const pm = /^([\d.,]+[kKmM]?) (sent|received|cache write|cache hit)$/.exec(part.trim());
      const n = pm === null ? undefined : tokenCount(pm[1] as string);
      if (pm !== null && n !== undefined) parts.set(pm[2] as string, n);
    }
    const money = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s.replace(/,/g, "")));
    const sent = parts.get("sent");
    const received = parts.get("received") ?? tokenCount((m[1] as string).split(/,\s*/).pop() ?? "");
    if (sent === undefined || received === undefined) return undefined;
    return {
      kind: "tokens",
      sent,
      received,
      cacheWrite: parts.get("cache write"),
      cacheHit: parts.get("cache hit"),
      messageUsd: money(m[2]),
      sessionUsd: money(m[3]),
    };
  }
  return undefined;
}

/** Strips the `> ` that marks Aider's output in a chat history file, and the Markdown hard-break spaces. */
function unquote(line: string): { text: string; quoted: boolean } {
  if (line === ">" || line.startsWith("> ")) return { text: line.slice(2).trimEnd(), quoted: true };
  return { text: line, quoted: false };
}

/** Aider's plain-text output (it has no JSON mode), read best-effort; see docs/dialects/aider.md. */
export const aider: Dialect = {
  name: "aider",
  description: "Aider plain-text output (best effort)",
  readsText: true,
  detect(record) {
    if (record.kind !== "text") return false;
    const { text } = unquote(record.text);
    if (CHAT_STARTED.test(text)) return true;
    const line = classify(text);
    return (
      line !== undefined &&
      (line.kind === "banner" ||
        line.kind === "applied" ||
        line.kind === "tokens" ||
        line.kind === "launch" ||
        (line.kind === "model" && line.editFormat !== undefined))
    );
  },
  createDecoder: createAiderDecoder,
};

function createAiderDecoder(): DialectDecoder {
  const decoding = new AiderStream();
  return {
    decode(record) {
      decoding.out = [];
      if (record.kind !== "text") {
        // Aider prints no JSON; a JSON-looking line is part of the reply (a code sample) and is kept as text.
        const text = JSON.stringify(record.value);
        if (decoding.inTranscript) decoding.say(text, decoding.message?.role ?? "assistant", record.line - decoding.lastLine);
        else decoding.out.push({ type: "text", text, position: "preamble" });
        decoding.lastLine = record.line;
        return decoding.out;
      }
      // The pipeline skips blank lines; a gap in line numbers is blank lines inside a message.
      const breaks = decoding.lastLine === 0 ? 1 : Math.max(1, record.line - decoding.lastLine);
      decoding.lastLine = record.line;
      // A website transcript opens with Jekyll front matter (`---` … `---`): page settings, not chat.
      if (decoding.frontMatter === "inside" || (decoding.frontMatter === "none" && record.line === 1 && record.text.trim() === "---")) {
        decoding.frontMatter = decoding.frontMatter === "none" ? "inside" : record.text.trim() === "---" ? "done" : "inside";
        decoding.website = true;
        return decoding.out;
      }
      const { text, quoted } = unquote(record.text);
      // Aider's .aider.chat.history.md writes the user's messages as `#### ` lines; we make them user messages.
      if (record.text.startsWith("#### ")) {
        decoding.endMessage();
        decoding.flushBanner();
        decoding.inTranscript = true;
        decoding.say(record.text.slice(5).trimEnd(), "user", 1);
        decoding.endMessage();
        return decoding.out;
      }
      const line = classify(text);
      if (quoted || line !== undefined) {
        decoding.output(line, text);
        return decoding.out;
      }
      if (decoding.banner !== undefined) decoding.flushBanner();
      if (MARKUP.test(record.text.trim())) {
        // The website's HTML around each chat is page structure, not something anyone said.
        decoding.endMessage();
        decoding.website = true;
        return decoding.out;
      }
      if (!decoding.inTranscript && decoding.website) {
        // The page's title and introduction, before the first chat: kept as an info notice.
        decoding.out.push({ type: "notice", kind: "page", level: "info", text: record.text.replace(/^#+\s*/, "") });
        return decoding.out;
      }
      if (!decoding.inTranscript) {
        decoding.endMessage();
        decoding.out.push({ type: "text", text: record.text, position: decoding.inTranscript ? "interleaved" : "preamble" });
        return decoding.out;
      }
      decoding.say(record.text, "assistant", breaks);
      if (decoding.message?.role === "assistant") decoding.trackEdit(record.text, breaks);
      return decoding.out;
    },
    end() {
      decoding.out = [];
      decoding.endMessage();
      decoding.flushBanner();
      decoding.out.push(...decoding.state.closeAll());
      return decoding.out;
    },
  };
}

/** One stream's decoding state, and the handlers that read and update it. */
class AiderStream {
  readonly state = createStreamState();
  inTranscript = false; // after a banner, a launch line or a user line: unknown lines are the assistant's
  banner: { agentVersion?: string; model?: string; details: JsonObject } | undefined;
  sessionStarted = false;
  message: { id: string; role: "assistant" | "user" } | undefined;
  pendingNewlines = 0;
  lastLine = 0;
  lastSessionUsd: number | undefined;
  // SEARCH/REPLACE blocks seen in the reply, by file, waiting for "Applied edit to <file>".
  readonly edits = new Map<string, string[]>();
  block: { path: string; lines: string[] } | undefined;
  lastPathLine: string | undefined;
  /** Jekyll front matter at the top of a website transcript. */
  frontMatter: "none" | "inside" | "done" = "none";
  /** The input is one of Aider's website chat transcripts (front matter, `<div class="chat-transcript">`). */
  website = false;
  out: AgentEventDraft[] = [];

  flushBanner(): void {
    if (this.banner === undefined) return;
    const b = this.banner;
    this.banner = undefined;
    this.sessionStarted = true;
    this.out.push(
      compact({
        type: "session.started" as const,
        agent: "aider",
        agentVersion: b.agentVersion,
        model: b.model,
        details: Object.keys(b.details).length > 0 ? b.details : undefined,
      }),
    );
  }
  openBanner(): NonNullable<AiderStream["banner"]> {
    if (this.banner === undefined) {
      this.endMessage();
      if (this.sessionStarted) {
        // A second banner: a new Aider run appended to the same log.
        this.lastSessionUsd = undefined;
      }
      this.banner = { details: {} };
    }
    this.inTranscript = true;
    return this.banner;
  }
  endMessage(): void {
    if (this.message === undefined) return;
    this.out.push(...this.state.complete(this.message.id, undefined, this.message.role, "text"));
    this.message = undefined;
    this.block = undefined;
    this.pendingNewlines = 0;
  }
  say(text: string, role: "assistant" | "user", breaks: number): void {
    if (this.message !== undefined && this.message.role !== role) this.endMessage();
    if (this.message === undefined) {
      this.message = { id: this.state.nextId("aider-msg"), role };
      this.pendingNewlines = 0;
      this.out.push(...this.state.delta(this.message.id, text, role, "text"));
      return;
    }
    const piece = "\n".repeat(this.pendingNewlines + breaks) + text;
    this.pendingNewlines = 0;
    this.out.push(...this.state.delta(this.message.id, piece, role, "text"));
  }
  /** Follows SEARCH/REPLACE (and 2023 ORIGINAL/UPDATED) blocks in the assistant's reply. */
  trackEdit(line: string, breaks: number): void {
    const t = line.trim();
    if (this.block !== undefined) {
      for (let i = 1; i < breaks; i++) this.block.lines.push("");
      this.block.lines.push(line);
      if (/^>{5,9} (?:REPLACE|UPDATED)$/.test(t)) {
        const list = this.edits.get(this.block.path) ?? [];
        list.push(this.block.lines.join("\n"));
        this.edits.set(this.block.path, list);
        this.block = undefined;
      }
      return;
    }
    if (/^<{5,9} (?:SEARCH|ORIGINAL)$/.test(t) && this.lastPathLine !== undefined) {
      this.block = { path: this.lastPathLine, lines: [line] };
      return;
    }
    if (t !== "" && !t.startsWith("```")) this.lastPathLine = t;
  }

  output(line: AiderLine | undefined, text: string): void {
    if (line === undefined) {
      if (text.trim() === "") return;
      // The history file records the launch command (`> /usr/bin/aider --model x`) before the banner.
      if (this.banner !== undefined && /(?:^|\/)aider(?:\s|$)/.test(text) && this.banner.details.command === undefined) {
        this.banner.details.command = text;
        return;
      }
      this.endMessage();
      this.flushBanner();
      const warning = /^(?:Warning|Error)\b/i.test(text);
      this.out.push({ type: "notice", kind: "output", level: warning ? "warning" : "info", text });
      return;
    }
    switch (line.kind) {
      case "banner":
        this.openBanner().agentVersion = line.version;
        return;
      case "model": {
        const b = this.openBanner();
        b.model = line.model;
        if (line.editFormat !== undefined) b.details.editFormat = line.editFormat;
        return;
      }
      case "banner-detail":
        if (this.banner !== undefined) {
          this.banner.details[DETAIL_KEYS[line.key] ?? line.key] = line.value;
          return;
        }
        this.out.push({ type: "notice", kind: "output", level: "info", text });
        return;
      case "chat-started": {
        this.endMessage();
        this.flushBanner();
        // Aider writes local time without a zone; we keep it in details and do not guess the offset.
        this.openBanner().details.chatStartedAt = line.at;
        return;
      }
      case "launch":
        this.endMessage();
        this.flushBanner();
        this.openBanner().details.command = line.command;
        return;
      default:
        break;
    }
    this.endMessage();
    this.flushBanner();
    this.inTranscript = true;
    switch (line.kind) {
      case "applied":
      case "failed-edit": {
        const blocks = this.edits.get(line.path);
        this.edits.delete(line.path);
        const diff = blocks === undefined ? undefined : blocks.join("\n");
        this.out.push({
          type: "file.changed",
          changes: [compact({ path: line.path, kind: "update" as const, diff })],
          status: line.kind === "applied" ? "success" : "error",
        });
        if (line.kind === "failed-edit") this.out.push({ type: "error", scope: "tool", message: text });
        return;
      }
      case "commit":
        this.out.push({ type: "notice", kind: "commit", level: "info", text, details: { hash: line.hash, message: line.message } });
        return;
      case "tokens": {
        // Aider's session cost is a running total: each usage event carries the increase since the last line, so the sum is Aider's own session figure.
        let costUsd: number | undefined;
        if (line.sessionUsd !== undefined) {
          costUsd =
            this.lastSessionUsd === undefined || line.sessionUsd < this.lastSessionUsd
              ? line.sessionUsd
              : Math.round((line.sessionUsd - this.lastSessionUsd) * 1e10) / 1e10;
          this.lastSessionUsd = line.sessionUsd;
        }
        const usage = usageFrom({
          inputTokens: line.sent,
          outputTokens: line.received,
          cacheWriteTokens: line.cacheWrite,
          cacheReadTokens: line.cacheHit,
        });
        this.out.push(compact({ type: "usage" as const, usage, scope: "delta" as const, costUsd }));
        if (line.messageUsd !== undefined && line.sessionUsd !== undefined) {
          this.out.push({ type: "metric", name: "cost", text, values: { messageUsd: line.messageUsd, sessionUsd: line.sessionUsd } });
        }
        return;
      }
    }
  }
}
