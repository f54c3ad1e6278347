// Source of truth: our own event model (src/model/events.ts) as a CommonMark/GFM transcript; layout, the safety rules
// for agent text and what is left out: docs/formats/markdown.md. Agent text stays Markdown (answers are written in
// it), but it cannot open HTML, load images, hide links to other schemes, spoof our headings or swallow the rest of
// the document in an unclosed fence. Tool input and output go in fences longer than any backtick run inside.
import { isNoResult, type EventOf, type FileChange, type MessageRole, type PlanItem } from "../../model/events.ts";
import { wholeArgument } from "../shared/format.ts";
import { sessionFooterView } from "../shared/view-model.ts";
import { cleanText, resultDetails, roleName, TranscriptSections, type TranscriptTool } from "./transcript.ts";
import type { EventWriter, WriterOptions } from "../../encoding/writer.ts";
import { stringifyRecord } from "../../framing/stringify.ts";

/** The streaming writer for `--to markdown`: a section per message, written when the message completes. */
export function createMarkdownWriter(_options: WriterOptions = {}): EventWriter {
  return new MarkdownSections().writer();
}

/** The Markdown transcript's sections: a `##` section per speaker, agent text kept as Markdown but made safe. */
class MarkdownSections extends TranscriptSections {
  titled = false;
  /** The `##` section we are in: who speaks, so assistant activity after a prompt gets its own heading. */
  section: string | undefined;
  /** Message text gathered from deltas, for messages whose message.completed never comes. */
  readonly open = new Map<
    string,
    { role: MessageRole; kind: string; channel: string | undefined; sessionId: string | undefined; chunks: string[] }
  >();
  shownAnswer = false;
  /** Whether the open section holds nothing but reasoning (the text that follows its thinking stays under it). */
  onlyReasoning = false;

  write(markdown: string): void {
    this.output.push(`${markdown}\n\n`);
  }

  title(): void {
    if (this.titled) return;
    this.titled = true;
    this.write("# Agent session");
  }

  /** Opens a `##` section for `who` unless we are in it; `message` asks for a new one unless the section holds only reasoning. */
  enter(who: string, what: "message" | "reasoning" | "activity" = "activity"): void {
    this.title();
    const stay = this.section === who && (what !== "message" || this.onlyReasoning);
    if (!stay) {
      this.section = who;
      this.write(`## ${who}`);
      this.onlyReasoning = true;
    }
    if (what !== "reasoning") this.onlyReasoning = false;
  }

  speaker(role: MessageRole, sessionId: string | undefined): string {
    const name = roleName(role);
    return this.isChild(sessionId) ? `${name} (subagent ${code(sessionId ?? "")})` : name;
  }

  /** A line outside any speaker's section (under the title). */
  note(markdown: string): void {
    this.title();
    this.write(markdown);
  }

  // ----- sessions -----

  sessionStarted(event: EventOf<"session.started">): void {
    this.title();
    const list = sessionFacts(event);
    if (list.length > 0) this.write(list.join("\n"));
  }

  subagentStarted(event: EventOf<"session.started">): void {
    this.enter(`Subagent ${code(event.sessionId ?? "")}`);
    if (event.parentToolCallId !== undefined) this.write(`Started by tool call ${code(event.parentToolCallId)}.`);
  }

  subagentFinished(event: EventOf<"session.completed">): void {
    this.enter(`Subagent ${code(event.sessionId ?? "")}`);
    this.write(`Subagent finished: **${event.status}**${event.error !== undefined ? `: ${inline(event.error)}` : ""}`);
  }

  turnFailed(event: EventOf<"turn.completed">): void {
    this.note(`> **Turn failed:** ${inline(event.error ?? "(no reason given)")}`);
  }

  // ----- messages -----

  messageStarted(event: EventOf<"message.started">): void {
    this.open.set(event.messageId, { role: event.role, kind: event.kind, channel: event.channel, sessionId: event.sessionId, chunks: [] });
  }

  messageDelta(event: EventOf<"message.delta">): void {
    let pending = this.open.get(event.messageId);
    if (pending === undefined) {
      // A delta for a message that never started: we take it for assistant text.
      pending = { role: "assistant", kind: "text", channel: undefined, sessionId: event.sessionId, chunks: [] };
      this.open.set(event.messageId, pending);
    }
    pending.chunks.push(event.text);
  }

  messageCompleted(event: EventOf<"message.completed">): void {
    this.open.delete(event.messageId);
    this.message(event.role, event.kind, event.channel, event.sessionId, event.text);
  }

  message(role: MessageRole, kind: string, channel: string | undefined, sessionId: string | undefined, text: string): void {
    if (text.trim() === "" && kind !== "redacted_reasoning") return;
    const who = this.speaker(role, sessionId);
    if (kind === "reasoning" || kind === "redacted_reasoning") {
      this.enter(who, "reasoning");
      const summary = kind === "reasoning" ? "Thinking" : "Thinking (redacted by the provider)";
      this.write(`<details>\n<summary>${summary}</summary>\n\n${text.trim() === "" ? "_(no text)_" : safeMarkdown(text)}\n\n</details>`);
      return;
    }
    if (role === "assistant") this.shownAnswer = true;
    this.enter(who, "message");
    if (channel !== undefined && channel !== "final") this.write(`_Channel: ${code(channel)}_`);
    this.write(safeMarkdown(text));
  }

  // ----- tools -----

  showTool(tool: TranscriptTool): void {
    this.enter(this.speaker("assistant", tool.sessionId));
    this.write(`### Tool: ${code(tool.name)}`);
    if (tool.input === undefined) return;
    const command = tool.kind === "command" ? wholeArgument(tool.input) : "";
    if (command !== "") this.write(fenced(command, "sh"));
    else if (typeof tool.input === "string") this.write(fenced(tool.input, "text"));
    else this.write(fenced(stringifyRecord(tool.input, 2), "json"));
  }

  toolCompleted(event: EventOf<"tool.completed">): void {
    const known = this.tools.get(event.toolCallId) !== undefined;
    const tool = this.tools.completed(event.toolCallId, event.name, event.sessionId);
    if (tool === undefined) return;
    const name = event.name ?? tool.name;
    if (!known) {
      // A result with no call before it: it gets the call's heading.
      this.enter(this.speaker("assistant", event.sessionId));
      this.write(`### Tool: ${code(name)}`);
    }
    if (isNoResult(event)) {
      this.write(`**Result of ${code(name)}:** no result`);
      return;
    }
    this.write(`**Result of ${code(name)}:** ${resultDetails(event)}`);
    const output = event.output ?? (tool.progress.length > 0 ? tool.progress.join("") : undefined);
    if (output !== undefined && output.trim() !== "") this.write(fenced(output, "text"));
    else if (event.result !== undefined) this.write(fenced(stringifyRecord(event.result, 2), "json"));
  }

  fileChanged(event: EventOf<"file.changed">): void {
    this.enter(this.speaker("assistant", event.sessionId));
    for (const change of event.changes) {
      this.write(`**Changed:** ${changeText(change)}`);
      if (change.diff !== undefined && change.diff.trim() !== "") this.write(fenced(change.diff, "diff"));
    }
  }

  plan(event: EventOf<"plan.updated">): void {
    this.enter(this.speaker("assistant", event.sessionId));
    this.write(`**Plan:**\n\n${event.items.map(planLine).join("\n")}`);
  }

  // ----- status lines -----

  metricLine(line: string, warning: boolean): void {
    this.note(warning ? `> **Warning:** ${inline(line)}` : `_Metric:_ ${inline(line)}`);
  }

  rateLimited(event: EventOf<"rate_limit">): void {
    const limit = event.limit !== undefined ? ` (${inline(event.limit)})` : "";
    this.note(
      `> **Rate limit ${inline(event.status)}**${limit}${event.resetsAt !== undefined ? `, resets at ${inline(event.resetsAt)}` : ""}`,
    );
  }

  retry(event: EventOf<"retry">): void {
    const of = event.maxAttempts !== undefined ? `/${event.maxAttempts}` : "";
    this.note(`> **Retry ${event.attempt}${of}**${event.error !== undefined ? `: ${inline(event.error)}` : ""}`);
  }

  error(event: EventOf<"error">): void {
    this.note(`> **Error (${event.scope}${event.code !== undefined ? `, ${inline(event.code)}` : ""}):** ${inline(event.message)}`);
  }

  warning(text: string): void {
    this.note(`> **Warning:** ${inline(text)}`);
  }

  text(event: EventOf<"text">): void {
    this.note(fenced(event.text, "text"));
  }

  finish(seen: boolean): void {
    if (seen) this.summaryTable();
  }

  summaryTable(): void {
    for (const [id, pending] of this.open) {
      this.open.delete(id);
      this.message(pending.role, pending.kind, pending.channel, pending.sessionId, pending.chunks.join(""));
    }
    const summary = this.facts.result();
    this.title();
    if (summary.finalText !== null && !this.shownAnswer) {
      this.section = "Final answer";
      this.write("## Final answer");
      this.write(safeMarkdown(summary.finalText));
    }
    const view = sessionFooterView(summary, this.facts.diagnostics());
    const rows: [string, string][] = [["Status", `**${view.status}**`]];
    if (view.error !== undefined) rows.push(["Error", cell(view.error)]);
    if (view.agent !== undefined) rows.push(["Agent", cell(view.agent)]);
    // A `|` ends a table cell even inside a code span: GFM wants it escaped there too.
    if (view.model !== undefined) rows.push(["Model", code(view.model).replace(/\|/g, "\\|")]);
    if (view.sessionId !== undefined) rows.push(["Session", code(view.sessionId).replace(/\|/g, "\\|")]);
    rows.push(["Tokens", view.tokens ?? "not reported"]);
    rows.push(["Cost", view.cost ?? "not reported"]);
    if (view.thinking !== undefined) rows.push(["Thinking", view.thinking]);
    if (view.duration !== undefined) rows.push(["Duration", view.duration]);
    if (view.turns !== undefined) rows.push(["Turns", String(view.turns)]);
    rows.push(["Tool calls", view.toolCalls]);
    if (view.subagents > 0) rows.push(["Subagents", String(view.subagents)]);
    if (view.repairs > 0) rows.push(["Stream repairs", String(view.repairs)]);
    if (view.unknownRecords > 0) rows.push(["Records not understood", String(view.unknownRecords)]);
    this.write("## Summary");
    this.write(["| Field | Value |", "| --- | --- |", ...rows.map(([k, v]) => `| ${k} | ${v} |`)].join("\n"));
  }
}

// ---------------------------------------------------------------------------------------------
// Making agent text safe inside our document
// ---------------------------------------------------------------------------------------------

/** A fenced code block whose fence is longer than any backtick run in `text`, so the text cannot close it. */
export function fenced(text: string, info: string): string {
  const body = cleanText(text).replace(/\n+$/, "");
  let longest = 0;
  for (const run of body.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${body}\n${fence}`;
}

/** An inline code span for a short agent string (a name, an id, a path): one line, delimited by a longer backtick run. */
export function code(text: string): string {
  const flat = cleanText(text).replace(/\s*\n\s*/g, " ");
  let longest = 0;
  for (const run of flat.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const ticks = "`".repeat(longest + 1);
  // A span that starts or ends with a backtick needs a space inside the delimiters (CommonMark strips one).
  const pad = flat.startsWith("`") || flat.endsWith("`") || flat === "" ? " " : "";
  return `${ticks}${pad}${flat}${pad}${ticks}`;
}

/** One line of agent text inside our own Markdown (a quote, a label): escaped as text, line breaks as spaces. */
function inline(text: string): string {
  return escapeInline(cleanText(text).replace(/\s*\n\s*/g, " "));
}

/** A table cell: inline text with `|` escaped. */
function cell(text: string): string {
  return inline(text).replace(/\|/g, "\\|");
}

/**
 * Agent Markdown made safe to embed: fences the agent opened are closed at the end; outside code, `<` becomes
 * `&lt;` (no raw HTML, no autolinks), images become text, links to anything but http(s), mailto, anchors and plain
 * relative paths become text, reference definitions become text, and ATX / setext headings are escaped so the agent
 * cannot start a section of ours.
 */
export function safeMarkdown(text: string): string {
  const lines = cleanText(text).replace(/\n+$/, "").split("\n");
  const out: string[] = [];
  let fence: { char: string; length: number } | undefined;
  let afterParagraph = false;
  for (const line of lines) {
    if (fence !== undefined) {
      out.push(line);
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close?.[1] !== undefined && close[1][0] === fence.char && close[1].length >= fence.length) fence = undefined;
      continue;
    }
    const opening = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(line);
    if (opening?.[2] !== undefined && !(opening[2][0] === "`" && (opening[3] ?? "").includes("`"))) {
      fence = { char: opening[2][0] ?? "`", length: opening[2].length };
      out.push(`${opening[1] ?? ""}${opening[2]}${(opening[3] ?? "").replace(/</g, "&lt;")}`);
      afterParagraph = false;
      continue;
    }
    out.push(escapeLine(line, afterParagraph));
    afterParagraph = line.trim() !== "";
  }
  // A fence the agent left open would swallow everything we write after it.
  if (fence !== undefined) out.push(fence.char.repeat(fence.length));
  return out.join("\n");
}

/** One line outside fenced code: block-level escapes, then inline ones. */
function escapeLine(line: string, afterParagraph: boolean): string {
  let escaped = line;
  if (/^ {0,3}#{1,6}(\s|$)/.test(escaped)) escaped = escaped.replace(/#/, "\\#");
  else if (afterParagraph && /^ {0,3}(=+|-+)\s*$/.test(escaped)) escaped = escaped.replace(/[=-]/, (c) => `\\${c}`);
  else if (/^ {0,3}\[[^\]]*\]:/.test(escaped)) escaped = escaped.replace(/\[/, "\\[");
  return escapeInline(escaped);
}

/** Inline escapes outside code spans (a backtick run closed by a run of the same length on the line). */
function escapeInline(line: string): string {
  if (!/[<!\]]/.test(line)) return line;
  let out = "";
  let i = 0;
  while (i < line.length) {
    const tick = line.indexOf("`", i);
    if (tick === -1) {
      out += escapeText(line.slice(i));
      break;
    }
    out += escapeText(line.slice(i, tick));
    let run = tick;
    while (line[run] === "`") run++;
    const close = closingRun(line, run, run - tick);
    if (close === -1) {
      out += line.slice(tick, run); // unmatched backticks are literal text
      i = run;
      continue;
    }
    out += line.slice(tick, close);
    i = close;
  }
  return out;
}

/** End index of the backtick run of exactly `length` after `from`, or -1. */
function closingRun(line: string, from: number, length: number): number {
  let j = line.indexOf("`", from);
  while (j !== -1) {
    let k = j;
    while (line[k] === "`") k++;
    if (k - j === length) return k;
    j = line.indexOf("`", k);
  }
  return -1;
}

/** Link destinations we leave as links: web and mail addresses, anchors, plain relative paths. */
const SAFE_DESTINATION = /^\s*(https?:\/\/|mailto:|#|\.{0,2}\/|[\w][\w./-]*(?:[)#\s]|$))/i;

function escapeText(text: string): string {
  return text
    .replace(/\]\(/g, (match, offset: number) => (SAFE_DESTINATION.test(text.slice(offset + 2)) ? match : "]\\("))
    .replace(/!\[/g, "!\\[")
    .replace(/</g, "&lt;");
}

function changeText(change: FileChange): string {
  if (change.kind === "rename" && change.newPath !== undefined) return `rename ${code(change.path)} → ${code(change.newPath)}`;
  return `${change.kind} ${code(change.path)}`;
}

function planLine(item: PlanItem): string {
  const mark = item.status === "completed" ? "[x]" : "[ ]";
  return `- ${mark} ${inline(item.text)}${item.status === "in_progress" ? " _(in progress)_" : ""}`;
}

/** The header list of a root session: the facts it started with. */
function sessionFacts(event: EventOf<"session.started">): string[] {
  const rows: [string, string | undefined][] = [
    ["Session", event.sessionId],
    ["Agent", [event.agent, event.agentVersion].filter(Boolean).join(" ") || undefined],
    ["Model", event.model],
    ["Directory", event.cwd],
    ["Permission mode", event.permissionMode],
  ];
  return rows
    .filter((r): r is [string, string] => r[1] !== undefined)
    .map(([k, v]) => `- **${k}:** ${k === "Agent" ? inline(v) : code(v)}`);
}
