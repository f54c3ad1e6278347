/**
 * One open session on the live page: a header (what it is, its liveness, close) and the shared
 * SessionView, fed from `EventSource('/api/sessions/<id>/events')`. The browser resumes a dropped
 * stream with `Last-Event-ID`; the pane also ignores any event at or below the last seq it showed,
 * so a reconnect can never show an event twice, whatever the server resends.
 */
import type { AgentEvent } from "../../model/events.ts";
import { el } from "./dom.ts";
import { Liveness } from "./liveness.ts";
import type { HeartbeatControl, LiveSessionInfo, ResyncControl, TruncatedControl } from "./live-wire.ts";
import { SessionView } from "./session-view.ts";
import { visibleLine } from "./text.ts";

/** After the browser gave up on a stream (an HTTP error), try again this much later. */
const RETRY_MS = 2000;

export class LivePane {
  readonly element: HTMLElement;
  readonly id: string;
  private readonly view: SessionView;
  private readonly liveness = new Liveness();
  private readonly body = el("div", { class: "as-pane-body" });
  private readonly title = el("span", { class: "as-pane-title" });
  private source: EventSource | undefined;
  private lastSeq = -1;
  private ended = false;
  private retry: number | undefined;
  /** A search hit's event to show once it has arrived (./live-search.ts). */
  private target: number | undefined;

  constructor(info: LiveSessionInfo, onClose: (pane: LivePane) => void) {
    this.id = info.id;
    const close = el("button", { class: "as-pane-close", text: "×", attrs: { type: "button", "aria-label": "close this session" } });
    close.addEventListener("click", () => onClose(this));
    const head = el("div", { class: "as-pane-head" }, [this.title, this.liveness.element, close]);
    this.element = el("section", { class: "as-pane", attrs: { "data-session": info.id } }, [head, this.body]);
    this.view = new SessionView(this.body);
    this.update(info);
    this.connect();
  }

  /** The list's newer facts (a run's agent and folder are known only after its first events). */
  update(info: LiveSessionInfo): void {
    const title = visibleLine(paneTitle(info));
    if (this.title.textContent === title) return;
    this.title.textContent = title;
    this.title.title = visibleLine(info.file ?? info.cwd ?? info.id);
    this.element.setAttribute("aria-label", title);
  }

  /** Events shown so far: the seq of the last one (-1: none). */
  get seq(): number {
    return this.lastSeq;
  }

  /**
   * Scrolls to event `seq` and marks it (a search hit): at once when it is on the page, else when it arrives (or
   * the stream ends without it: then the last entry before it). Closed blocks around it open.
   */
  reveal(seq: number): void {
    this.target = seq;
    if (this.lastSeq >= seq || this.ended) this.showTarget();
  }

  private showTarget(): void {
    const seq = this.target;
    if (seq === undefined) return;
    const entry = this.view.entryFor(seq);
    if (entry === undefined) return;
    this.target = undefined;
    for (const marked of Array.from(this.body.querySelectorAll(".as-hit-target"))) marked.classList.remove("as-hit-target");
    for (let at: HTMLElement | null = entry; at !== null && at !== this.body; at = at.parentElement)
      if (at instanceof HTMLDetailsElement) at.open = true;
    entry.classList.add("as-hit-target");
    entry.dataset.hit = String(seq);
    if (!entry.hasAttribute("tabindex")) entry.tabIndex = -1;
    entry.focus({ preventScroll: true });
    entry.scrollIntoView({ block: "center" });
    // The header and chart are drawn again after this event (a microtask): what they add above moves the entry.
    window.requestAnimationFrame(() => {
      if (entry.classList.contains("as-hit-target")) entry.scrollIntoView({ block: "center" });
    });
  }

  close(): void {
    this.ended = true;
    this.source?.close();
    window.clearTimeout(this.retry);
    this.liveness.dispose();
    this.element.remove();
  }

  private connect(): void {
    const after = this.lastSeq >= 0 ? `?after=${this.lastSeq}` : "";
    const source = new EventSource(`/api/sessions/${encodeURIComponent(this.id)}/events${after}`);
    this.source = source;
    source.onopen = () => this.liveness.connection(true);
    source.onmessage = (message) => this.onEvent(JSON.parse(message.data as string) as AgentEvent);
    source.addEventListener("heartbeat", (message) => {
      const beat = JSON.parse((message as MessageEvent<string>).data) as HeartbeatControl;
      this.liveness.connection(true);
      if (!beat.live) this.liveness.end();
    });
    source.addEventListener("resync", (message) => {
      const control = JSON.parse((message as MessageEvent<string>).data) as ResyncControl;
      this.liveness.connection(false, control.reason);
    });
    source.addEventListener("truncated", (message) =>
      this.onTruncated(JSON.parse((message as MessageEvent<string>).data) as TruncatedControl),
    );
    source.addEventListener("end", () => this.onEnd());
    source.onerror = () => {
      this.liveness.connection(false);
      // The browser retries by itself unless the server answered with an error: then we do, resuming after our last seq.
      if (source.readyState === EventSource.CLOSED && !this.ended) this.retry = window.setTimeout(() => this.connect(), RETRY_MS);
    };
  }

  private onEvent(event: AgentEvent): void {
    if (event.seq <= this.lastSeq) return;
    this.lastSeq = event.seq;
    this.liveness.event(event);
    this.view.append(event);
    this.element.dataset.seq = String(event.seq);
    if (this.target !== undefined && event.seq >= this.target) this.showTarget();
  }

  private onTruncated(control: TruncatedControl): void {
    const note = el("p", {
      class: "as-notice",
      attrs: { role: "note" },
      text: `The first ${control.dropped} events of this long session are no longer kept by the server; the log has them.`,
    });
    this.body.prepend(note);
  }

  private onEnd(): void {
    this.ended = true;
    this.source?.close();
    this.view.end();
    this.liveness.end();
    this.element.dataset.ended = "yes";
    this.showTarget();
  }
}

/** "claude-code · ~/work/app" */
function paneTitle(info: LiveSessionInfo): string {
  const where = info.cwd ?? info.file ?? info.id;
  return [info.agent ?? "session", where].join(" · ");
}
