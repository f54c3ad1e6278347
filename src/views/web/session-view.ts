/**
 * The session on a page, built incrementally: `append(event)` updates the DOM in place (a delta
 * extends its message, a result fills its call's block, a subagent's entries go under the call that
 * started it), so the live page and the HTML export share it (the export appends every embedded
 * event on load). Agent text only ever reaches the page as text, or as sanitized Markdown.
 */
import type { AgentEvent, EventOf } from "../../model/events.ts";
import { createSummaryBuilder, type SummaryBuilder } from "../../summary/summarize.ts";
import { viewMetric } from "../shared/metric.ts";
import type { ExportHeader, ExportTruncation } from "../shared/exported-session.ts";
import { stringifyRecord } from "../../framing/stringify.ts";
import { fileChangeBlock } from "./diff.ts";
import { disclosure, el } from "./dom.ts";
import { NO_RECORD_STATS, renderHeader } from "./header.ts";
import { appendDelta, completeMessage, createMessageBlock, endMessage, type MessageBlock } from "./message-block.ts";
import {
  addInputDelta,
  addProgress,
  childrenOf,
  completeTool,
  createToolBlock,
  orphanToolBlock,
  showInput,
  type ToolBlock,
  type ToolContext,
} from "./tool-block.ts";
import { formatSize, longText, visible, visibleLine } from "./text.ts";
import { renderTimeline, Timeline } from "./timeline.ts";

/** How the view is set up. */
export interface SessionViewOptions {
  /** Facts about the export (input file, dialect, redactions). */
  readonly header?: ExportHeader;
  /** What the export's size caps left out: said on the page, and under each shortened field. */
  readonly truncation?: ExportTruncation;
}

/** One session (and the subagents it started) in the element `root`. */
export class SessionView {
  private readonly header = el("header", { class: "as-header" });
  private readonly timeline = el("section", { class: "as-timeline", attrs: { "aria-label": "tokens and cost" } });
  private readonly stream = el("div", { class: "as-stream as-conversation" });
  private readonly messages = new Map<string, MessageBlock>();
  private readonly tools = new Map<string, ToolBlock>();
  /** Where each session's entries go: the root's in the conversation, a subagent's under its call. */
  private readonly containers = new Map<string, HTMLElement>();
  /** The entry that shows each event a search can find (a message's completion, a tool's start and end, an error): where a hit scrolls to. */
  private readonly entries = new Map<number, HTMLElement>();
  private readonly cwds = new Map<string, string>();
  private readonly summary: SummaryBuilder = createSummaryBuilder();
  private readonly usage = new Timeline();
  private rootSession: string | undefined;
  private start: string | undefined;
  private turnMs: number | undefined;
  private dialect: string | undefined;
  private lastAnswer = "";
  private refreshQueued = false;
  private ended = false;

  private readonly root: HTMLElement;
  private readonly options: SessionViewOptions;

  constructor(root: HTMLElement, options: SessionViewOptions = {}) {
    this.root = root;
    this.options = options;
    const notice = truncationNotice(options.truncation);
    root.append(this.header, ...(notice === undefined ? [] : [notice]), this.timeline, this.stream);
    this.timeline.hidden = true;
    this.refresh();
  }

  /** Shows one more event. */
  append(event: AgentEvent): void {
    this.summary.add(event);
    this.dialect ??= event.source?.dialect;
    if (this.start === undefined && event.time !== undefined) this.start = event.time;
    if (this.isRoot(event) && this.usage.add(event)) this.queueRefresh();
    this.dispatch(event);
  }

  /**
   * The entry that shows event `seq` (a search hit's event): its own entry, else the block it completed or went into,
   * else the last entry before it. Undefined before any entry.
   */
  entryFor(seq: number): HTMLElement | undefined {
    const own = this.entries.get(seq);
    if (own !== undefined) return own;
    let before: HTMLElement | undefined;
    for (const [at, element] of this.entries) if (at <= seq) before = element;
    return before;
  }

  /** The input ended: messages still streaming keep their text, the header and chart get their last figures. */
  end(): void {
    this.ended = true;
    for (const block of this.messages.values()) endMessage(block);
    this.refresh();
  }

  private dispatch(event: AgentEvent): void {
    switch (event.type) {
      case "session.started":
        this.onSessionStarted(event);
        return;
      case "session.completed":
        this.onSessionCompleted(event);
        return;
      case "message.started":
        this.messageFor(event.messageId, event.role, event.kind, event);
        return;
      case "message.delta":
        appendDelta(this.messageFor(event.messageId, event.role, event.kind, event), event.text);
        return;
      case "message.completed":
        this.onMessageCompleted(event);
        return;
      case "tool.started":
        this.onToolStarted(event);
        return;
      case "tool.input.delta": {
        const block = this.tools.get(event.toolCallId);
        if (block !== undefined) addInputDelta(block, event);
        return;
      }
      case "tool.progress": {
        const block = this.tools.get(event.toolCallId);
        if (block !== undefined) addProgress(block, event);
        return;
      }
      case "tool.completed":
        this.onToolCompleted(event);
        return;
      case "file.changed":
        this.onFileChanged(event);
        return;
      case "plan.updated":
        this.onPlan(event);
        return;
      case "turn.completed":
        if (event.status === "error" && event.error !== undefined) this.errorEntry(event, `turn failed: ${event.error}`);
        return;
      case "error":
        this.errorEntry(event, event.code === undefined ? event.message : `${event.message} (${event.code})`);
        return;
      default:
        this.onOther(event);
        return;
    }
  }

  private onOther(event: AgentEvent): void {
    switch (event.type) {
      case "metric": {
        const view = viewMetric(event, false);
        if (view.turnMs !== undefined && this.isRoot(event)) this.turnMs = (this.turnMs ?? 0) + view.turnMs;
        if (view.line !== undefined) this.metaEntry(event, view.line, view.warning === true ? "warning" : "info");
        return;
      }
      case "notice": {
        // "permission mode: bypassPermissions" already says what kind of notice it is.
        const named = event.text.toLowerCase().startsWith(event.kind.replace(/_/g, " ").toLowerCase());
        this.metaEntry(event, named ? event.text : `${event.kind}: ${event.text}`, event.level);
        return;
      }
      case "text":
        this.metaEntry(event, event.text, "info");
        return;
      case "retry": {
        const of = event.maxAttempts ? ` of ${event.maxAttempts}` : "";
        this.metaEntry(event, `retry ${event.attempt}${of}${event.error ? `: ${event.error}` : ""}`, "warning");
        return;
      }
      case "rate_limit":
        if (event.status !== "allowed")
          this.metaEntry(
            event,
            `rate limit ${event.status}${event.limit ? ` (${event.limit})` : ""}${event.resetsAt ? `, resets ${event.resetsAt}` : ""}`,
            "warning",
          );
        return;
      case "unknown":
        this.add(
          event,
          disclosure(
            "as-entry as-unknown",
            [el("span", { class: "as-label", text: `unknown record${event.reason ? `: ${visibleLine(event.reason)}` : ""}` })],
            [longText(stringifyRecord(event.raw, 2))],
          ),
        );
        return;
      default:
        // turn.started, usage, heartbeat, repair, tool input deltas of unknown calls: nothing to show as an entry.
        return;
    }
  }

  private onSessionStarted(event: EventOf<"session.started">): void {
    const id = event.sessionId ?? "";
    if (event.cwd !== undefined && !this.cwds.has(id)) this.cwds.set(id, event.cwd);
    const parent = event.parentToolCallId === undefined ? undefined : this.tools.get(event.parentToolCallId);
    const child = event.parentSessionId !== undefined || event.parentToolCallId !== undefined;
    if (!child) {
      if (this.rootSession === undefined) this.rootSession = id;
      if (!this.containers.has(id)) this.containers.set(id, this.stream);
      if (event.time !== undefined && this.start === undefined) this.start = event.time;
      this.queueRefresh();
      return;
    }
    if (this.containers.has(id)) return;
    const label = `subagent${event.agent ? ` · ${event.agent}` : ""}${event.model ? ` · ${event.model}` : ""}`;
    if (parent !== undefined) {
      this.containers.set(id, childrenOf(parent, visibleLine(label)));
      return;
    }
    // A subagent whose call we never saw: its own block in the conversation.
    const children = el("div", { class: "as-stream as-children" });
    this.add(event, disclosure("as-entry as-subagent", [el("span", { class: "as-label", text: visibleLine(label) })], [children]));
    this.containers.set(id, children);
  }

  private onSessionCompleted(event: EventOf<"session.completed">): void {
    this.queueRefresh();
    const root = this.isRoot(event);
    const final = event.finalText;
    const repeated = final === undefined || squeeze(final) === "" || this.lastAnswer.includes(squeeze(final));
    if (root && !repeated) {
      const block = createMessageBlock(`final:${event.seq}`, "assistant", "text");
      completeMessage(block, final, this.omitted(event.seq, "finalText"));
      this.add(event, block.element);
    }
    const words = [event.status, event.error === undefined ? "" : `: ${event.error}`].join("");
    const entry = el("p", {
      class: `as-entry as-end as-end-${event.status}`,
      text: visibleLine(`${root ? "session" : "subagent"} ${words}`),
    });
    entry.tabIndex = -1;
    this.add(event, entry);
  }

  private onMessageCompleted(event: EventOf<"message.completed">): void {
    const block = this.messageFor(event.messageId, event.role, event.kind, event);
    completeMessage(block, event.text, this.omitted(event.seq, "text"));
    this.entries.set(event.seq, block.element);
    if (event.role === "assistant" && event.kind === "text" && this.isRoot(event)) this.lastAnswer += squeeze(event.text);
  }

  private onToolStarted(event: EventOf<"tool.started">): void {
    if (this.tools.has(event.toolCallId)) return;
    const block = createToolBlock(event, this.toolContext(event));
    this.tools.set(event.toolCallId, block);
    this.add(event, block.element);
  }

  private onToolCompleted(event: EventOf<"tool.completed">): void {
    let block = this.tools.get(event.toolCallId);
    if (block === undefined) {
      block = orphanToolBlock(event, this.toolContext(event));
      this.tools.set(event.toolCallId, block);
      this.add(event, block.element);
    }
    completeTool(block, event, this.toolContext(event));
    this.entries.set(event.seq, block.element);
  }

  private onFileChanged(event: EventOf<"file.changed">): void {
    const block = event.toolCallId === undefined ? undefined : this.tools.get(event.toolCallId);
    const cwd = this.cwdOf(event);
    const files = event.changes.map((change, i) =>
      fileChangeBlock(change, cwd, this.omitted(event.seq, `diff:${i}`), event.status === "error"),
    );
    if (block !== undefined) {
      if (block.input === undefined) showInput(block, this.toolContext(event), event.seq);
      block.files.append(...files);
      block.element.dataset.files = "yes";
      return;
    }
    const label = `${event.changes.length} file${event.changes.length === 1 ? "" : "s"} changed`;
    this.add(event, disclosure("as-entry as-files-entry", [el("span", { class: "as-label", text: label })], files, true));
  }

  private onPlan(event: EventOf<"plan.updated">): void {
    const list = el("ul", { class: "as-plan" });
    for (const item of event.items) {
      const mark = item.status === "completed" ? "☑" : item.status === "in_progress" ? "◐" : "☐";
      list.append(
        el("li", { class: `as-plan-${item.status}` }, [
          el("span", { class: "as-plan-mark", text: mark }),
          el("span", { text: visibleLine(item.text) }),
        ]),
      );
    }
    const container = this.containerOf(event);
    const last = container.lastElementChild;
    // Successive updates of one list replace it; a plan after other entries is a new entry.
    if (last instanceof HTMLElement && last.classList.contains("as-plan-entry")) {
      last.querySelector(".as-plan")?.replaceWith(list);
      return;
    }
    const entry = el("section", { class: "as-entry as-plan-entry" }, [el("div", { class: "as-label", text: "Plan" }), list]);
    entry.tabIndex = -1;
    this.add(event, entry);
  }

  private errorEntry(event: AgentEvent, message: string): void {
    const entry = el("div", { class: "as-entry as-error", attrs: { role: "note" } }, [
      el("span", { class: "as-label", text: "Error" }),
      longText(message),
    ]);
    entry.tabIndex = -1;
    this.add(event, entry);
  }

  private metaEntry(event: AgentEvent, text: string, level: "info" | "warning"): void {
    const clean = visible(text);
    const first = clean.split("\n", 1)[0] ?? "";
    const entry =
      clean.length > first.length || clean.length > 300
        ? disclosure(`as-meta-entry as-${level}`, [el("span", { text: first.slice(0, 200) })], [longText(text)])
        : el("p", { class: `as-meta-entry as-${level}`, text: clean });
    this.add(event, entry);
  }

  private messageFor(
    id: string,
    role: EventOf<"message.started">["role"],
    kind: EventOf<"message.started">["kind"],
    event: AgentEvent,
  ): MessageBlock {
    let block = this.messages.get(id);
    if (block === undefined) {
      block = createMessageBlock(id, role, kind);
      this.messages.set(id, block);
      this.add(event, block.element);
    }
    return block;
  }

  private add(event: AgentEvent, element: HTMLElement): void {
    element.dataset.seq = String(event.seq);
    this.entries.set(event.seq, element);
    this.containerOf(event).append(element);
  }

  private containerOf(event: AgentEvent): HTMLElement {
    return (event.sessionId === undefined ? undefined : this.containers.get(event.sessionId)) ?? this.stream;
  }

  private isRoot(event: AgentEvent): boolean {
    const container = event.sessionId === undefined ? undefined : this.containers.get(event.sessionId);
    return container === undefined || container === this.stream;
  }

  private cwdOf(event: AgentEvent): string | undefined {
    return (event.sessionId === undefined ? undefined : this.cwds.get(event.sessionId)) ?? this.cwds.get(this.rootSession ?? "");
  }

  private toolContext(event: AgentEvent): ToolContext {
    return { cwd: this.cwdOf(event), omitted: (seq, field) => this.omitted(seq, field) };
  }

  private omitted(seq: number, field: string): number | undefined {
    return this.options.truncation?.cut[String(seq)]?.[field];
  }

  private queueRefresh(): void {
    if (this.refreshQueued) return;
    this.refreshQueued = true;
    queueMicrotask(() => this.refresh());
  }

  /** Header and chart from the figures so far. */
  private refresh(): void {
    this.refreshQueued = false;
    const summary = this.summary.result(NO_RECORD_STATS, this.dialect);
    const cwd = this.cwds.get(this.rootSession ?? "");
    renderHeader(this.header, { summary, cwd, start: this.start, turnMs: this.turnMs, export: this.options.header });
    renderTimeline(this.timeline, this.usage.points);
    this.root.dataset.state = this.ended ? "ended" : "open";
  }
}

/** "12 outputs shortened; 48.0 MB not embedded (caps: 256 KB a field, 8 MB in all)". */
function truncationNotice(truncation: ExportTruncation | undefined): HTMLElement | undefined {
  const events = truncation?.omittedEvents ?? 0;
  if (truncation === undefined || (truncation.shortened === 0 && events === 0)) return undefined;
  const fields = `${truncation.shortened} field${truncation.shortened === 1 ? "" : "s"} shortened; ${formatSize(truncation.omittedChars)} not embedded`;
  const later = events === 0 ? "" : `; ${events} later event${events === 1 ? "" : "s"} not embedded (the session's end is)`;
  const text = `${fields}${later} (caps: ${formatSize(truncation.fieldChars)} a field, ${formatSize(truncation.totalChars)} in all). The full session is in the input file.`;
  return el("p", { class: "as-notice", attrs: { role: "note" }, text });
}

/** Text without white space, to tell whether the final answer was already shown. */
function squeeze(text: string): string {
  return text.replace(/\s+/g, "");
}
