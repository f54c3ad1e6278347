// Source: `aider --no-pretty --yes-always -m "<prompt>"` stdout, and `.aider.chat.history.md` transcripts; versions and quirks: docs/dialects/aider.md
import type { AgentEventDraft, JsonObject } from "../../model/events.ts";
import { usageFrom } from "../../model/usage.ts";
import type { Dialect } from "../../dialect/dialect.ts";
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
  | { kind: "tokens"; sent: number; received: number; cacheWrite: number | undefined; cacheHit: number | undefined; messageUsd: number | undefined; sessionUsd: number | undefined };

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
    return { kind: "tokens", sent, received, cacheWrite: parts.get("cache write"), cacheHit: parts.get("cache hit"), messageUsd: money(m[2]), sessionUsd: money(m[3]) };
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
    return line !== undefined && (line.kind === "banner" || line.kind === "applied" || line.kind === "tokens" || line.kind === "launch" || (line.kind === "model" && line.editFormat !== undefined));
  },
  createDecoder() {
    const state = createStreamState();
    let inTranscript = false; // after a banner, a launch line or a user line: unknown lines are the assistant's
    let banner: { agentVersion?: string; model?: string; details: JsonObject } | undefined;
    let sessionStarted = false;
    let message: { id: string; role: "assistant" | "user" } | undefined;
    let pendingNewlines = 0;
    let lastLine = 0;
    let lastSessionUsd: number | undefined;
    // SEARCH/REPLACE blocks seen in the reply, by file, waiting for "Applied edit to <file>".
    const edits = new Map<string, string[]>();
    let block: { path: string; lines: string[] } | undefined;
    let lastPathLine: string | undefined;
    /** Jekyll front matter at the top of a website transcript. */
    let frontMatter: "none" | "inside" | "done" = "none";
    /** The input is one of Aider's website chat transcripts (front matter, `<div class="chat-transcript">`). */
    let website = false;
    let out: AgentEventDraft[] = [];

    const flushBanner = (): void => {
      if (banner === undefined) return;
      const b = banner;
      banner = undefined;
      sessionStarted = true;
      out.push(compact({ type: "session.started" as const, agent: "aider", agentVersion: b.agentVersion, model: b.model, details: Object.keys(b.details).length > 0 ? b.details : undefined }));
    };
    const openBanner = (): NonNullable<typeof banner> => {
      if (banner === undefined) {
        endMessage();
        if (sessionStarted) {
          // A second banner: a new Aider run appended to the same log.
          lastSessionUsd = undefined;
        }
        banner = { details: {} };
      }
      inTranscript = true;
      return banner;
    };
    const endMessage = (): void => {
      if (message === undefined) return;
      out.push(...state.complete(message.id, undefined, message.role, "text"));
      message = undefined;
      block = undefined;
      pendingNewlines = 0;
    };
    const say = (text: string, role: "assistant" | "user", breaks: number): void => {
      if (message !== undefined && message.role !== role) endMessage();
      if (message === undefined) {
        message = { id: state.nextId("aider-msg"), role };
        pendingNewlines = 0;
        out.push(...state.delta(message.id, text, role, "text"));
        return;
      }
      const piece = "\n".repeat(pendingNewlines + breaks) + text;
      pendingNewlines = 0;
      out.push(...state.delta(message.id, piece, role, "text"));
    };
    /** Follows SEARCH/REPLACE (and 2023 ORIGINAL/UPDATED) blocks in the assistant's reply. */
    const trackEdit = (line: string, breaks: number): void => {
      const t = line.trim();
      if (block !== undefined) {
        for (let i = 1; i < breaks; i++) block.lines.push("");
        block.lines.push(line);
        if (/^>{5,9} (?:REPLACE|UPDATED)$/.test(t)) {
          const list = edits.get(block.path) ?? [];
          list.push(block.lines.join("\n"));
          edits.set(block.path, list);
          block = undefined;
        }
        return;
      }
      if (/^<{5,9} (?:SEARCH|ORIGINAL)$/.test(t) && lastPathLine !== undefined) {
        block = { path: lastPathLine, lines: [line] };
        return;
      }
      if (t !== "" && !t.startsWith("```")) lastPathLine = t;
    };

    const output = (line: AiderLine | undefined, text: string): void => {
      if (line === undefined) {
        if (text.trim() === "") return;
        // The history file records the launch command (`> /usr/bin/aider --model x`) before the banner.
        if (banner !== undefined && /(?:^|\/)aider(?:\s|$)/.test(text) && banner.details.command === undefined) {
          banner.details.command = text;
          return;
        }
        endMessage();
        flushBanner();
        const warning = /^(?:Warning|Error)\b/i.test(text);
        out.push({ type: "notice", kind: "output", level: warning ? "warning" : "info", text });
        return;
      }
      switch (line.kind) {
        case "banner":
          openBanner().agentVersion = line.version;
          return;
        case "model": {
          const b = openBanner();
          b.model = line.model;
          if (line.editFormat !== undefined) b.details.editFormat = line.editFormat;
          return;
        }
        case "banner-detail":
          if (banner !== undefined) {
            banner.details[DETAIL_KEYS[line.key] ?? line.key] = line.value;
            return;
          }
          out.push({ type: "notice", kind: "output", level: "info", text });
          return;
        case "chat-started": {
          endMessage();
          flushBanner();
          // Aider writes local time without a zone; we keep it in details and do not guess the offset.
          openBanner().details.chatStartedAt = line.at;
          return;
        }
        case "launch":
          endMessage();
          flushBanner();
          openBanner().details.command = line.command;
          return;
        default:
          break;
      }
      endMessage();
      flushBanner();
      inTranscript = true;
      switch (line.kind) {
        case "applied":
        case "failed-edit": {
          const blocks = edits.get(line.path);
          edits.delete(line.path);
          const diff = blocks === undefined ? undefined : blocks.join("\n");
          out.push({ type: "file.changed", changes: [compact({ path: line.path, kind: "update" as const, diff })], status: line.kind === "applied" ? "success" : "error" });
          if (line.kind === "failed-edit") out.push({ type: "error", scope: "tool", message: text });
          return;
        }
        case "commit":
          out.push({ type: "notice", kind: "commit", level: "info", text, details: { hash: line.hash, message: line.message } });
          return;
        case "tokens": {
          // Aider's session cost is a running total: each usage event carries the increase since the last line, so the sum is Aider's own session figure.
          let costUsd: number | undefined;
          if (line.sessionUsd !== undefined) {
            costUsd = lastSessionUsd === undefined || line.sessionUsd < lastSessionUsd ? line.sessionUsd : Math.round((line.sessionUsd - lastSessionUsd) * 1e10) / 1e10;
            lastSessionUsd = line.sessionUsd;
          }
          const usage = usageFrom({ inputTokens: line.sent, outputTokens: line.received, cacheWriteTokens: line.cacheWrite, cacheReadTokens: line.cacheHit });
          out.push(compact({ type: "usage" as const, usage, scope: "delta" as const, costUsd }));
          if (line.messageUsd !== undefined && line.sessionUsd !== undefined) {
            out.push({ type: "metric", name: "cost", text, values: { messageUsd: line.messageUsd, sessionUsd: line.sessionUsd } });
          }
          return;
        }
      }
    };

    return {
      decode(record) {
        out = [];
        if (record.kind !== "text") {
          // Aider prints no JSON; a JSON-looking line is part of the reply (a code sample) and is kept as text.
          const text = JSON.stringify(record.value);
          if (inTranscript) say(text, message?.role ?? "assistant", record.line - lastLine);
          else out.push({ type: "text", text, position: "preamble" });
          lastLine = record.line;
          return out;
        }
        // The pipeline skips blank lines; a gap in line numbers is blank lines inside a message.
        const breaks = lastLine === 0 ? 1 : Math.max(1, record.line - lastLine);
        lastLine = record.line;
        // A website transcript opens with Jekyll front matter (`---` … `---`): page settings, not chat.
        if (frontMatter === "inside" || (frontMatter === "none" && record.line === 1 && record.text.trim() === "---")) {
          frontMatter = frontMatter === "none" ? "inside" : record.text.trim() === "---" ? "done" : "inside";
          website = true;
          return out;
        }
        const { text, quoted } = unquote(record.text);
        // Aider's .aider.chat.history.md writes the user's messages as `#### ` lines; we make them user messages.
        if (record.text.startsWith("#### ")) {
          endMessage();
          flushBanner();
          inTranscript = true;
          say(record.text.slice(5).trimEnd(), "user", 1);
          endMessage();
          return out;
        }
        const line = classify(text);
        if (quoted || line !== undefined) {
          output(line, text);
          return out;
        }
        if (banner !== undefined) flushBanner();
        if (MARKUP.test(record.text.trim())) {
          // The website's HTML around each chat is page structure, not something anyone said.
          endMessage();
          website = true;
          return out;
        }
        if (!inTranscript && website) {
          // The page's title and introduction, before the first chat: kept as an info notice.
          out.push({ type: "notice", kind: "page", level: "info", text: record.text.replace(/^#+\s*/, "") });
          return out;
        }
        if (!inTranscript) {
          endMessage();
          out.push({ type: "text", text: record.text, position: inTranscript ? "interleaved" : "preamble" });
          return out;
        }
        say(record.text, "assistant", breaks);
        if (message?.role === "assistant") trackEdit(record.text, breaks);
        return out;
      },
      end() {
        out = [];
        endMessage();
        flushBanner();
        out.push(...state.closeAll());
        return out;
      },
    };
  },
};
