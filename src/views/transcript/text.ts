// Source of truth: our own event model (src/model/events.ts) rendered for people; layout, choices and what is left
// out: docs/formats/text.md. Plain text: no colour, no escape sequences; control characters in agent text are shown
// as visible pictures (src/views/shared/sanitize.ts). Streams: assistant text is written as its deltas arrive.
import { assertNever, isNoResult, type AgentEvent, type FileChange, type MessageRole, type PlanItem } from "../../model/events.ts";
import { viewMetric } from "../shared/metric.ts";
import { formatDuration, wholeArgument } from "../shared/format.ts";
import { sessionFooterView } from "../shared/view-model.ts";
import {
  cleanText,
  createOutputBuffer,
  createSessionFacts,
  createToolTracker,
  createTranscriptWriter,
  type TranscriptTool,
} from "./transcript.ts";
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
  const output = createOutputBuffer();
  let wroteAnything = false;
  /** What the last block was, so a tool's result sits right under its call. */
  let lastBlock: { kind: "tool" | "result" | "other"; toolCallId?: string } = { kind: "other" };
  const facts = createSessionFacts();
  const tools = createToolTracker();
  const children = new Set<string>();
  let rootId: string | undefined;
  const messages = new Map<string, { role: MessageRole; kind: string; channel: string | undefined }>();
  const streamed = new Map<string, StreamedMessage>();
  /** The message whose text the cursor is in the middle of. */
  let onScreen: string | undefined;
  let shownAnswer = false;

  const isChild = (event: AgentEvent): boolean => event.sessionId !== undefined && children.has(event.sessionId);
  const write = (text: string): void => {
    if (text === "") return;
    output.push(text);
    wroteAnything = true;
  };
  const closeLine = (): void => {
    if (onScreen === undefined) return;
    onScreen = undefined;
    write("\n");
  };
  /** Writes one block: a blank line before it, unless it belongs under the block before. */
  const block = (text: string, kind: "tool" | "result" | "other" = "other", toolCallId?: string, attach = false): void => {
    closeLine();
    if (wroteAnything && !attach) write("\n");
    write(`${text}\n`);
    lastBlock = toolCallId === undefined ? { kind } : { kind, toolCallId };
  };

  const labelFor = (role: MessageRole, kind: string, channel: string | undefined, child: boolean): string => {
    let label =
      kind === "reasoning"
        ? "Thinking"
        : kind === "redacted_reasoning"
          ? "Thinking (redacted)"
          : role === "assistant"
            ? "Assistant"
            : role === "user"
              ? "User"
              : role === "system"
                ? "System"
                : "Developer";
    if (channel !== undefined && channel !== "final") label += ` [${oneLine(channel)}]`;
    return child ? `${label} (subagent)` : label;
  };

  // ----- streamed messages -----

  const appendStreamed = (id: string, message: StreamedMessage, text: string): void => {
    if (onScreen !== id) {
      closeLine();
      if (wroteAnything) write("\n");
      write(`${message.label}${message.written ? " (continued)" : ""}:`);
      message.newlines = 0;
      onScreen = id;
      lastBlock = { kind: "other" };
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
    write(piece);
  };

  const messageCompleted = (event: Extract<AgentEvent, { type: "message.completed" }>): void => {
    const label = labelFor(event.role, event.kind, event.channel, isChild(event));
    const message = streamed.get(event.messageId);
    streamed.delete(event.messageId);
    messages.delete(event.messageId);
    if (event.role === "assistant" && event.kind === "text" && event.text.trim() !== "") shownAnswer = true;
    if (message === undefined) {
      if (event.text.trim() !== "") block(labelled(label, event.text));
      return;
    }
    const sofar = message.chunks.join("");
    if (event.text === sofar || (event.text.startsWith(sofar) && event.text.length > sofar.length)) {
      // The completed text is what streamed (plus, at most, a tail the deltas did not carry).
      if (event.text !== sofar) appendStreamed(event.messageId, message, event.text.slice(sofar.length));
      if (onScreen === event.messageId) closeLine();
      return;
    }
    // The final text differs from what streamed (a repaired stream): the final one is the message.
    block(labelled(`${label} (final text)`, event.text));
  };

  // ----- tools -----

  const showTool = (tool: TranscriptTool): void => {
    const argument = wholeArgument(tool.input);
    const name = `Tool ${oneLine(tool.name)}${tool.sessionId !== undefined && children.has(tool.sessionId) ? " (subagent)" : ""}`;
    block(argument === "" ? name : labelled(name, argument), "tool", tool.toolCallId);
  };
  const showReady = (): void => {
    for (const tool of tools.ready()) showTool(tool);
  };

  const toolCompleted = (event: Extract<AgentEvent, { type: "tool.completed" }>): void => {
    const tool = tools.completed(event.toolCallId, event.name, event.sessionId);
    if (tool === undefined) return;
    if (isNoResult(event)) {
      block(
        `Result ${oneLine(event.name ?? tool.name)}: no result`,
        "result",
        event.toolCallId,
        lastBlock.kind === "tool" && lastBlock.toolCallId === event.toolCallId,
      );
      return;
    }
    const details = [
      event.isError ? "failed" : "ok",
      event.exitCode !== undefined ? `exit ${event.exitCode}` : "",
      event.durationMs !== undefined ? formatDuration(event.durationMs) : "",
    ]
      .filter(Boolean)
      .join(", ");
    const output =
      event.output ??
      (tool.progress.length > 0 ? tool.progress.join("") : event.result !== undefined ? stringifyRecord(event.result, 2) : undefined);
    const body = output === undefined || output.trim() === "" ? "" : `\n${indented(output, BODY)}`;
    const attach = lastBlock.kind === "tool" && lastBlock.toolCallId === event.toolCallId;
    block(`Result ${oneLine(event.name ?? tool.name)}: ${details}${body}`, "result", event.toolCallId, attach);
  };

  const fileChanged = (event: Extract<AgentEvent, { type: "file.changed" }>): void => {
    const attach = event.toolCallId !== undefined && lastBlock.toolCallId === event.toolCallId;
    block(event.changes.map(changeText).join("\n"), "other", event.toolCallId, attach);
  };

  // ----- events -----

  const handle = (event: AgentEvent): void => {
    switch (event.type) {
      case "session.started": {
        const child = event.parentSessionId !== undefined || event.parentToolCallId !== undefined;
        if (child) {
          if (event.sessionId !== undefined && event.sessionId !== rootId) children.add(event.sessionId);
          block(
            oneLine(
              `Subagent ${event.sessionId ?? ""} started${event.parentToolCallId !== undefined ? ` (tool call ${event.parentToolCallId})` : ""}`.replace(
                / {2,}/g,
                " ",
              ),
            ),
          );
          return;
        }
        rootId ??= event.sessionId;
        const about = [
          [event.agent, event.agentVersion].filter(Boolean).join(" "),
          event.model !== undefined ? `model ${event.model}` : "",
          event.cwd !== undefined ? `in ${event.cwd}` : "",
        ]
          .filter(Boolean)
          .join(", ");
        block(oneLine(`Session${event.sessionId !== undefined ? ` ${event.sessionId}` : ""}${about !== "" ? `: ${about}` : ""}`));
        return;
      }
      case "session.completed":
        if (isChild(event))
          block(
            oneLine(`Subagent ${event.sessionId ?? ""} finished: ${event.status}${event.error !== undefined ? `: ${event.error}` : ""}`),
          );
        return;
      case "turn.started":
      case "usage":
      case "heartbeat":
      case "repair":
      case "unknown":
        return;
      case "turn.completed":
        if (event.status === "error") block(labelled("Turn failed", event.error ?? "(no reason given)"));
        return;
      case "message.started":
        messages.set(event.messageId, { role: event.role, kind: event.kind, channel: event.channel });
        return;
      case "message.delta": {
        if (event.text === "") return;
        let message = streamed.get(event.messageId);
        if (message === undefined) {
          // A delta for a message that never started: we take it for assistant text.
          const meta = messages.get(event.messageId) ?? { role: "assistant" as const, kind: "text", channel: undefined };
          message = { label: labelFor(meta.role, meta.kind, meta.channel, isChild(event)), chunks: [], newlines: 0, written: false };
          streamed.set(event.messageId, message);
        }
        message.chunks.push(event.text);
        appendStreamed(event.messageId, message, event.text);
        return;
      }
      case "message.completed":
        messageCompleted(event);
        return;
      case "tool.started": {
        const tool = tools.started(event);
        if (tool !== undefined) showTool(tool);
        return;
      }
      case "tool.input.delta":
        tools.inputDelta(event.toolCallId, event.text);
        return;
      case "tool.progress":
        if (event.output !== undefined) tools.progress(event.toolCallId, event.output);
        return;
      case "tool.completed":
        toolCompleted(event);
        return;
      case "file.changed":
        fileChanged(event);
        return;
      case "plan.updated":
        block(`Plan:\n${event.items.map(planLine).join("\n")}`);
        return;
      case "metric": {
        // Agents' diagnostics go to the footer or, when unusual, say so in words (src/views/shared/metric.ts).
        const view = viewMetric(event, false);
        if (view.line !== undefined) block(view.warning === true ? `Warning: ${oneLine(view.line)}` : `Metric: ${oneLine(view.line)}`);
        return;
      }
      case "rate_limit":
        // "allowed" is the normal state; warnings and rejections are worth a line.
        if (event.status !== "allowed")
          block(
            oneLine(
              `Rate limit ${event.status}${event.limit !== undefined ? ` (${event.limit})` : ""}${event.resetsAt !== undefined ? `, resets at ${event.resetsAt}` : ""}`,
            ),
          );
        return;
      case "retry": {
        const head = `Retry ${event.attempt}${event.maxAttempts !== undefined ? `/${event.maxAttempts}` : ""}${event.delayMs !== undefined ? ` in ${formatDuration(event.delayMs)}` : ""}`;
        block(event.error === undefined ? head : labelled(head, event.error));
        return;
      }
      case "error":
        block(labelled(`Error (${event.scope}${event.code !== undefined ? `, ${oneLine(event.code)}` : ""})`, event.message));
        return;
      case "notice":
        if (event.level === "warning") block(labelled("Warning", event.text));
        return;
      case "text":
        block(labelled("Text", event.text));
        return;
      default:
        assertNever(event);
    }
  };

  const footer = (): void => {
    const summary = facts.result();
    if (summary.finalText !== null && !shownAnswer) block(labelled("Final answer", summary.finalText));
    const view = sessionFooterView(summary, facts.diagnostics());
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
    block(`${RULE}\n${lines.join("\n")}`);
  };

  return createTranscriptWriter({
    facts,
    output,
    showReady,
    handle,
    finish: (seen) => {
      closeLine();
      if (seen) footer();
    },
  });
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
