/**
 * A tool call as a collapsed block: the summary line (name, key argument, status, duration) and,
 * opened, its input, its output (a preview and "show all"), the files it changed and the subagent
 * it started. Filled in place as the call's events arrive.
 */
import { stringifyRecord } from "../../framing/stringify.ts";
import { type EventOf, type JsonValue, isNoResult } from "../../model/events.ts";
import { isJsonObject } from "../../model/lossless-integer.ts";
import { formatDuration, keyArgument } from "../shared/format.ts";
import { disclosure, el } from "./dom.ts";
import { longText, visible, visibleLine } from "./text.ts";

/** A tool call on the page. */
export interface ToolBlock {
  readonly id: string;
  readonly kind: string | undefined;
  readonly element: HTMLDetailsElement;
  readonly status: HTMLElement;
  readonly argument: HTMLElement;
  readonly body: HTMLElement;
  /** Where changed files go (before the output). */
  readonly files: HTMLElement;
  /** Where a subagent's entries go (created when one starts). */
  children: HTMLElement | undefined;
  input: JsonValue | undefined;
  readonly inputParts: string[];
  inputShown: boolean;
  /** Streamed progress output, shown until the result replaces it. */
  progress: Text | undefined;
  completed: boolean;
}

/** What the block needs besides the event: the session's directory, the export's cut fields. */
export interface ToolContext {
  readonly cwd: string | undefined;
  readonly omitted: (seq: number, field: string) => number | undefined;
}

/** A new, collapsed block for `tool.started`. */
export function createToolBlock(event: EventOf<"tool.started">, context: ToolContext): ToolBlock {
  const status = el("span", { class: "as-badge as-badge-running", text: "running" });
  const argument = el("bdi", { class: "as-arg", attrs: { dir: "auto" } });
  const name = el("span", { class: "as-tool-name", text: visibleLine(event.name === "" ? "tool" : event.name) });
  const files = el("div", { class: "as-files" });
  const body = el("div", { class: "as-tool-body" }, [files]);
  const mark = el("span", { class: "as-tool-mark", text: "→", attrs: { "aria-hidden": "true" } });
  const summary: Node[] = [mark, name];
  if (event.kind === "subagent") summary.push(el("span", { class: "as-badge as-badge-subagent", text: "subagent" }));
  const element = disclosure("as-entry as-tool", [...summary, argument, status], [body]);
  element.dataset.kind = event.kind ?? "other";
  element.tabIndex = -1;
  const block: ToolBlock = {
    id: event.toolCallId,
    kind: event.kind,
    element,
    status,
    argument,
    body,
    files,
    children: undefined,
    input: event.input,
    inputParts: [],
    inputShown: false,
    progress: undefined,
    completed: false,
  };
  if (event.description !== undefined && event.description !== "")
    body.prepend(el("p", { class: "as-tool-description", text: visibleLine(event.description) }));
  if (event.input !== undefined) showInput(block, context, event.seq);
  return block;
}

/** A block for a result whose call was never seen (the input started mid-session). */
export function orphanToolBlock(event: EventOf<"tool.completed">, context: ToolContext): ToolBlock {
  return createToolBlock({ ...event, type: "tool.started", name: event.name ?? "tool" }, context);
}

/** Streamed arguments: kept until the call completes, then shown parsed. */
export function addInputDelta(block: ToolBlock, event: EventOf<"tool.input.delta">): void {
  if (!block.inputShown) block.inputParts.push(event.text);
}

/** Shows the arguments: the key one on the summary line, all of them as JSON in the body. */
export function showInput(block: ToolBlock, context: ToolContext, seq: number): void {
  if (block.inputShown) return;
  if (block.input === undefined && block.inputParts.length > 0) {
    try {
      block.input = JSON.parse(block.inputParts.join("")) as JsonValue;
    } catch {
      block.input = block.inputParts.join("");
    }
  }
  if (block.input === undefined) return;
  block.inputShown = true;
  block.argument.textContent = visibleLine(keyArgument(block.input, context.cwd, block.kind));
  const empty = isJsonObject(block.input) && Object.keys(block.input).length === 0;
  if (empty) return;
  const text = typeof block.input === "string" ? block.input : stringifyRecord(block.input, 2);
  const omitted = context.omitted(seq, "input");
  const section = el("section", { class: "as-tool-input" }, [
    el("h4", { text: "input" }),
    longText(text, omitted === undefined ? {} : { omittedChars: omitted }),
  ]);
  block.files.before(section);
}

/** Progress output while the tool runs. */
export function addProgress(block: ToolBlock, event: EventOf<"tool.progress">): void {
  if (event.status !== undefined && event.status !== "") block.status.textContent = visibleLine(event.status);
  if (event.output === undefined || event.output === "" || block.completed) return;
  if (block.progress === undefined) {
    block.progress = document.createTextNode("");
    block.body.append(
      el("section", { class: "as-tool-progress" }, [el("h4", { text: "output so far" }), el("pre", { class: "as-pre" }, [block.progress])]),
    );
  }
  block.progress.appendData(visible(event.output));
}

/** The result: status badge, duration, output (or "no result"). */
export function completeTool(block: ToolBlock, event: EventOf<"tool.completed">, context: ToolContext): void {
  showInput(block, context, event.seq);
  block.completed = true;
  block.body.querySelector(".as-tool-progress")?.remove();
  const noResult = isNoResult(event);
  const state = noResult ? "none" : event.isError ? "error" : "ok";
  block.element.dataset.status = state;
  const words = [
    noResult ? "no result" : event.isError ? (event.exitCode !== undefined ? `exit ${event.exitCode}` : "failed") : "ok",
    event.durationMs !== undefined ? formatDuration(event.durationMs) : "",
  ].filter(Boolean);
  block.status.className = `as-badge as-badge-${state}`;
  block.status.textContent = words.join(" · ");
  if (noResult) return;
  const output = outputOf(event);
  if (output.trim() === "") return;
  const omitted = context.omitted(event.seq, event.output !== undefined ? "output" : "result");
  const options = { class: event.isError ? "as-error-text" : "as-output", ...(omitted === undefined ? {} : { omittedChars: omitted }) };
  block.body.append(
    el("section", { class: "as-tool-output" }, [el("h4", { text: event.isError ? "error" : "output" }), longText(output, options)]),
  );
}

function outputOf(event: EventOf<"tool.completed">): string {
  if (event.output !== undefined) return event.output;
  if (event.result === undefined || event.result === null) return "";
  return typeof event.result === "string" ? event.result : stringifyRecord(event.result, 2);
}

/** The place a subagent started by this call puts its entries. */
export function childrenOf(block: ToolBlock, label: string): HTMLElement {
  if (block.children === undefined) {
    block.children = el("div", { class: "as-stream as-children", attrs: { "aria-label": label } });
    block.body.append(el("section", { class: "as-subagent" }, [el("h4", { text: label }), block.children]));
  }
  return block.children;
}
