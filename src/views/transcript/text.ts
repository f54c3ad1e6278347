// Source of truth: our own event model (src/model/events.ts) rendered for people; layout, choices and what is left
// out: docs/formats/text.md. Plain text: no colour, no escape sequences; control characters in agent text are shown
// as visible pictures (src/views/shared/sanitize.ts). Streams: assistant text is written as its deltas arrive.
import { isNoResult, type EventOf, type FileChange, type MessageRole, type PlanItem } from "../../model/events.ts";
import { formatDuration, wholeArgument } from "../shared/format.ts";
import { sessionFooterView } from "../shared/view-model.ts";
import { cleanText, resultDetails, roleName, TranscriptSections, type TranscriptTool } from "./transcript.ts";
import type { EventWriter, WriterOptions } from "../../encoding/writer.ts";
import { stringifyRecord } from "../../framing/stringify.ts";

/** Continuation lines of a labelled block are indented this much; tool output and diffs twice as much. */
const INDENT = "  ";
const BODY = "    ";
const RULE = "-".repeat(40);

/** A message whose deltas are being written. */
interface StreamedMessage {
  readonly label: string;
  readonly chunks: string[];
  /** Line breaks held back, so a message never ends on an indented empty line. */
  newlines: number;
  /** Whether any of it has been written (a message resumed after another one says "continued"). */
  written: boolean;
}

/** The streaming writer for `--to text`. */
export function createTextWriter(_options: WriterOptions = {}): EventWriter {
  return new TextSections().writer();
}

/** The text transcript's sections: labelled blocks, assistant text written as its deltas arrive. */
class TextSections extends TranscriptSections {
  wroteAnything = false;
  /** What the last block was, so a tool's result sits right under its call. */
  lastBlock: { kind: "tool" | "result" | "other"; toolCallId?: string } = { kind: "other" };
  readonly messages = new Map<string, { role: MessageRole; kind: string; channel: string | undefined }>();
  readonly streamed = new Map<string, StreamedMessage>();
  /** The message whose text the cursor is in the middle of. */
  onScreen: string | undefined;
  shownAnswer = false;

  write(text: string): void {
    if (text === "") return;
    this.output.push(text);
    this.wroteAnything = true;
  }

  closeLine(): void {
    if (this.onScreen === undefined) return;
    this.onScreen = undefined;
    this.write("\n");
  }

  /** Writes one block: a blank line before it, unless it belongs under the block before. */
  block(text: string, kind: "tool" | "result" | "other" = "other", toolCallId?: string, attach = false): void {
    this.closeLine();
    if (this.wroteAnything && !attach) this.write("\n");
    this.write(`${text}\n`);
    this.lastBlock = toolCallId === undefined ? { kind } : { kind, toolCallId };
  }

  labelFor(role: MessageRole, kind: string, channel: string | undefined, child: boolean): string {
    let label = kind === "reasoning" ? "Thinking" : kind === "redacted_reasoning" ? "Thinking (redacted)" : roleName(role);
    if (channel !== undefined && channel !== "final") label += ` [${oneLine(channel)}]`;
    return child ? `${label} (subagent)` : label;
  }

  // ----- sessions -----

  sessionStarted(event: EventOf<"session.started">): void {
    const about = [
      [event.agent, event.agentVersion].filter(Boolean).join(" "),
      event.model !== undefined ? `model ${event.model}` : "",
      event.cwd !== undefined ? `in ${event.cwd}` : "",
    ]
      .filter(Boolean)
      .join(", ");
    this.block(oneLine(`Session${event.sessionId !== undefined ? ` ${event.sessionId}` : ""}${about !== "" ? `: ${about}` : ""}`));
  }

  subagentStarted(event: EventOf<"session.started">): void {
    const by = event.parentToolCallId !== undefined ? ` (tool call ${event.parentToolCallId})` : "";
    this.block(oneLine(`Subagent ${event.sessionId ?? ""} started${by}`.replace(/ {2,}/g, " ")));
  }

  subagentFinished(event: EventOf<"session.completed">): void {
    this.block(
      oneLine(`Subagent ${event.sessionId ?? ""} finished: ${event.status}${event.error !== undefined ? `: ${event.error}` : ""}`),
    );
  }

  turnFailed(event: EventOf<"turn.completed">): void {
    this.block(labelled("Turn failed", event.error ?? "(no reason given)"));
  }

  // ----- streamed messages -----

  messageStarted(event: EventOf<"message.started">): void {
    this.messages.set(event.messageId, { role: event.role, kind: event.kind, channel: event.channel });
  }

  messageDelta(event: EventOf<"message.delta">): void {
    if (event.text === "") return;
    let message = this.streamed.get(event.messageId);
    if (message === undefined) {
      // A delta for a message that never started: we take it for assistant text.
      const meta = this.messages.get(event.messageId) ?? { role: "assistant" as const, kind: "text", channel: undefined };
      const label = this.labelFor(meta.role, meta.kind, meta.channel, this.isChild(event.sessionId));
      message = { label, chunks: [], newlines: 0, written: false };
      this.streamed.set(event.messageId, message);
    }
    message.chunks.push(event.text);
    this.appendStreamed(event.messageId, message, event.text);
  }

  appendStreamed(id: string, message: StreamedMessage, text: string): void {
    if (this.onScreen !== id) {
      this.closeLine();
      if (this.wroteAnything) this.write("\n");
      this.write(`${message.label}${message.written ? " (continued)" : ""}:`);
      message.newlines = 0;
      this.onScreen = id;
      this.lastBlock = { kind: "other" };
    }
    const lines = cleanText(text).split("\n");
    let piece = "";
    lines.forEach((segment, index) => {
      if (index > 0) message.newlines++;
      if (segment === "") return;
      if (!message.written) piece += ` ${segment}`;
      else if (message.newlines > 0) piece += `${"\n".repeat(message.newlines)}${INDENT}${segment}`;
      else piece += segment;
      message.newlines = 0;
      message.written = true;
    });
    this.write(piece);
  }

  messageCompleted(event: EventOf<"message.completed">): void {
    const label = this.labelFor(event.role, event.kind, event.channel, this.isChild(event.sessionId));
    const message = this.streamed.get(event.messageId);
    this.streamed.delete(event.messageId);
    this.messages.delete(event.messageId);
    if (event.role === "assistant" && event.kind === "text" && event.text.trim() !== "") this.shownAnswer = true;
    if (message === undefined) {
      if (event.text.trim() !== "") this.block(labelled(label, event.text));
      return;
    }
    const sofar = message.chunks.join("");
    if (event.text === sofar || (event.text.startsWith(sofar) && event.text.length > sofar.length)) {
      // The completed text is what streamed (plus, at most, a tail the deltas did not carry).
      if (event.text !== sofar) this.appendStreamed(event.messageId, message, event.text.slice(sofar.length));
      if (this.onScreen === event.messageId) this.closeLine();
      return;
    }
    // The final text differs from what streamed (a repaired stream): the final one is the message.
    this.block(labelled(`${label} (final text)`, event.text));
  }

  // ----- tools -----

  showTool(tool: TranscriptTool): void {
    const argument = wholeArgument(tool.input);
    const name = `Tool ${oneLine(tool.name)}${this.isChild(tool.sessionId) ? " (subagent)" : ""}`;
    this.block(argument === "" ? name : labelled(name, argument), "tool", tool.toolCallId);
  }

  toolCompleted(event: EventOf<"tool.completed">): void {
    const tool = this.tools.completed(event.toolCallId, event.name, event.sessionId);
    if (tool === undefined) return;
    const attach = this.lastBlock.kind === "tool" && this.lastBlock.toolCallId === event.toolCallId;
    if (isNoResult(event)) {
      this.block(`Result ${oneLine(event.name ?? tool.name)}: no result`, "result", event.toolCallId, attach);
      return;
    }
    const output =
      event.output ??
      (tool.progress.length > 0 ? tool.progress.join("") : event.result !== undefined ? stringifyRecord(event.result, 2) : undefined);
    const body = output === undefined || output.trim() === "" ? "" : `\n${indented(output, BODY)}`;
    this.block(`Result ${oneLine(event.name ?? tool.name)}: ${resultDetails(event)}${body}`, "result", event.toolCallId, attach);
  }

  fileChanged(event: EventOf<"file.changed">): void {
    const attach = event.toolCallId !== undefined && this.lastBlock.toolCallId === event.toolCallId;
    this.block(event.changes.map(changeText).join("\n"), "other", event.toolCallId, attach);
  }

  plan(event: EventOf<"plan.updated">): void {
    this.block(`Plan:\n${event.items.map(planLine).join("\n")}`);
  }

  // ----- status lines -----

  metricLine(line: string, warning: boolean): void {
    this.block(warning ? `Warning: ${oneLine(line)}` : `Metric: ${oneLine(line)}`);
  }

  rateLimited(event: EventOf<"rate_limit">): void {
    const limit = event.limit !== undefined ? ` (${event.limit})` : "";
    this.block(oneLine(`Rate limit ${event.status}${limit}${event.resetsAt !== undefined ? `, resets at ${event.resetsAt}` : ""}`));
  }

  retry(event: EventOf<"retry">): void {
    const head = `Retry ${event.attempt}${event.maxAttempts !== undefined ? `/${event.maxAttempts}` : ""}${event.delayMs !== undefined ? ` in ${formatDuration(event.delayMs)}` : ""}`;
    this.block(event.error === undefined ? head : labelled(head, event.error));
  }

  error(event: EventOf<"error">): void {
    this.block(labelled(`Error (${event.scope}${event.code !== undefined ? `, ${oneLine(event.code)}` : ""})`, event.message));
  }

  warning(text: string): void {
    this.block(labelled("Warning", text));
  }

  text(event: EventOf<"text">): void {
    this.block(labelled("Text", event.text));
  }

  finish(seen: boolean): void {
    this.closeLine();
    if (seen) this.footer();
  }

  footer(): void {
    const summary = this.facts.result();
    if (summary.finalText !== null && !this.shownAnswer) this.block(labelled("Final answer", summary.finalText));
    const view = sessionFooterView(summary, this.facts.diagnostics());
    const lines: string[] = [`Status: ${view.status}`];
    if (view.error !== undefined) lines.push(labelled("Error", view.error));
    if (view.agent !== undefined) lines.push(`Agent: ${oneLine(view.agent)}`);
    if (view.model !== undefined) lines.push(`Model: ${oneLine(view.model)}`);
    if (view.tokens !== undefined) lines.push(`Tokens: ${view.tokens}`);
    if (view.cost !== undefined) lines.push(`Cost: ${view.cost}`);
    if (view.thinking !== undefined) lines.push(`Thinking: ${view.thinking}`);
    if (view.duration !== undefined) lines.push(`Duration: ${view.duration}`);
    if (view.turns !== undefined) lines.push(`Turns: ${view.turns}`);
    lines.push(`Tool calls: ${view.toolCalls}`);
    if (view.subagents > 0) lines.push(`Subagents: ${view.subagents}`);
    if (view.repairs > 0) lines.push(`Stream repairs: ${view.repairs}`);
    if (view.unknownRecords > 0) lines.push(`Records not understood: ${view.unknownRecords}`);
    this.block(`${RULE}\n${lines.join("\n")}`);
  }
}

/** A name, an id or a status line: control characters made visible and line breaks turned into spaces. */
function oneLine(text: string): string {
  return cleanText(text).replace(/\s*\n\s*/g, " ");
}

/** `Label: first line` with the other lines indented under it; control characters made visible. */
function labelled(label: string, text: string): string {
  const lines = cleanText(text).replace(/\n+$/, "").split("\n");
  const [first = "", ...rest] = lines;
  const head = first === "" ? `${label}:` : `${label}: ${first}`;
  return rest.length === 0 ? head : `${head}\n${rest.map((line) => (line === "" ? "" : `${INDENT}${line}`)).join("\n")}`;
}

/** Every line of `text` behind `prefix` (blank lines stay empty), without a trailing line break. */
function indented(text: string, prefix: string): string {
  return cleanText(text)
    .replace(/\n+$/, "")
    .split("\n")
    .map((line) => (line === "" ? "" : `${prefix}${line}`))
    .join("\n");
}

function changeText(change: FileChange): string {
  const what =
    change.kind === "rename" && change.newPath !== undefined
      ? `rename ${change.path} -> ${change.newPath}`
      : `${change.kind} ${change.path}`;
  const head = `Changed: ${oneLine(what)}`;
  return change.diff === undefined || change.diff.trim() === "" ? head : `${head}\n${indented(change.diff, BODY)}`;
}

function planLine(item: PlanItem): string {
  const mark = item.status === "completed" ? "[x]" : item.status === "in_progress" ? "[>]" : "[ ]";
  return `${INDENT}${mark} ${oneLine(item.text)}`;
}
