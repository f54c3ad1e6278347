/**
 * The live page's session list: one button per session (agent, its title or first prompt, where, when,
 * status, tokens, cost, a dot while it is live; its subagent files as smaller buttons under it), a filter
 * box (any words: agent, model, folder, file, title, prompt, status, `live`) and a "live only" switch.
 * Arrow keys move between sessions; Enter opens one beside the others.
 */
import { formatCost, formatTime, formatUsage } from "../shared/format.ts";
import { el } from "./dom.ts";
import type { LiveSessionInfo } from "./live-wire.ts";
import { visibleLine } from "./text.ts";

export class SessionList {
  readonly element: HTMLElement;
  readonly filter = el("input", {
    class: "as-search as-list-filter",
    attrs: { type: "search", placeholder: "filter sessions (f)", "aria-label": "filter sessions" },
  });
  private readonly liveOnly = el("input", { attrs: { type: "checkbox", "aria-label": "live sessions only" } });
  private readonly items = el("ul", { class: "as-list-items", attrs: { role: "list" } });
  private readonly count = el("span", { class: "as-list-count", attrs: { "aria-live": "polite" } });
  private sessions: readonly LiveSessionInfo[] = [];
  private open: ReadonlySet<string> = new Set();
  /** What the list shows now, to skip rebuilding it for an unchanged answer. */
  private drawn = "";
  private readonly onOpen: (info: LiveSessionInfo) => void;

  constructor(onOpen: (info: LiveSessionInfo) => void) {
    this.onOpen = onOpen;
    const live = el("label", { class: "as-list-live" }, [this.liveOnly, document.createTextNode(" live only")]);
    this.element = el("aside", { class: "as-list", attrs: { "aria-label": "sessions" } }, [
      el("div", { class: "as-list-tools" }, [this.filter, live, this.count]),
      this.items,
    ]);
    this.filter.addEventListener("input", () => this.render());
    this.liveOnly.addEventListener("change", () => this.render());
    this.items.addEventListener("keydown", (event) => this.onKey(event));
  }

  /** New list from the server. */
  update(sessions: readonly LiveSessionInfo[]): void {
    this.sessions = sessions;
    this.render();
  }

  /** Marks the sessions shown in panes (in place: the list is not rebuilt under the pointer). */
  setOpen(ids: ReadonlySet<string>): void {
    this.open = ids;
    for (const button of Array.from(this.items.querySelectorAll<HTMLElement>(".as-list-item"))) {
      if (ids.has(button.dataset.session ?? "")) button.setAttribute("aria-current", "true");
      else button.removeAttribute("aria-current");
    }
  }

  find(id: string): LiveSessionInfo | undefined {
    for (const session of this.sessions) {
      if (session.id === id) return session;
      const subagent = (session.subagents ?? []).find((s) => s.id === id);
      if (subagent !== undefined) return subagent;
    }
    return undefined;
  }

  private render(): void {
    const words = this.filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = this.sessions.filter(
      (s) => (!this.liveOnly.checked || s.live) && words.every((w) => [s, ...(s.subagents ?? [])].some((x) => searchText(x).includes(w))),
    );
    // Rebuilt only when what it shows changed: a click between two refreshes must land on the same button.
    const drawn = JSON.stringify(shown);
    if (drawn === this.drawn) return;
    this.drawn = drawn;
    const focused = document.activeElement instanceof HTMLElement ? document.activeElement.dataset.session : undefined;
    this.items.replaceChildren(...shown.map((s) => this.entry(s)));
    this.count.textContent = `${shown.length} of ${this.sessions.length}`;
    if (focused !== undefined) this.items.querySelector<HTMLElement>(`[data-session="${CSS.escape(focused)}"]`)?.focus();
  }

  /** A session's row, and its subagents' rows under it. */
  private entry(info: LiveSessionInfo): HTMLElement {
    const subagents = info.subagents ?? [];
    if (subagents.length === 0) return el("li", {}, [this.item(info, false)]);
    const nested = el(
      "ul",
      { class: "as-list-subagents", attrs: { role: "list", "aria-label": "subagents" } },
      subagents.map((s) => el("li", {}, [this.item(s, true)])),
    );
    return el("li", {}, [this.item(info, false), nested]);
  }

  private item(info: LiveSessionInfo, subagent: boolean): HTMLElement {
    const facts = [
      info.start === null ? "" : formatTime(info.start),
      formatUsage(info.tokens),
      info.cost === null ? "" : formatCost(info.cost, info.costEstimated),
    ].filter(Boolean);
    const agent = subagent ? "subagent" : [info.agent ?? "session", info.agentVersion].filter(Boolean).join(" ");
    // What tells two sessions of one folder apart: the agent's title for it, else its first prompt.
    const named = info.title ?? info.prompt ?? null;
    const button = el(
      "button",
      { class: `as-list-item${subagent ? " as-list-subagent" : ""}`, attrs: { type: "button", "data-session": info.id } },
      [
        el("span", { class: "as-list-line" }, [
          el("span", { class: `as-dot${info.live ? " as-dot-live" : ""}`, attrs: { "aria-hidden": "true" } }),
          el("span", { class: "as-list-agent", text: visibleLine(agent) }),
          el("span", { class: `as-badge as-status as-status-${info.status}`, text: info.status }),
        ]),
        ...(named === null ? [] : [el("span", { class: "as-list-title", text: visibleLine(named) })]),
        ...(subagent
          ? []
          : [
              el("span", {
                class: "as-list-where",
                text: visibleLine([info.host, info.cwd ?? info.file ?? info.id].filter(Boolean).join(" · ")),
              }),
            ]),
        el("span", { class: "as-list-facts", text: facts.join(" · ") }),
      ],
    );
    if (this.open.has(info.id)) button.setAttribute("aria-current", "true");
    button.addEventListener("click", () => this.onOpen(info));
    return button;
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
    const buttons = Array.from(this.items.querySelectorAll<HTMLButtonElement>(".as-list-item"));
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = buttons[Math.min(Math.max(at + (event.key === "ArrowDown" ? 1 : -1), 0), buttons.length - 1)];
    next?.focus();
    event.preventDefault();
  }
}

/** What the filter matches: every fact shown, lower case. */
function searchText(info: LiveSessionInfo): string {
  return [
    info.agent,
    info.agentVersion,
    info.model,
    info.host,
    info.cwd,
    info.file,
    info.title,
    info.prompt,
    info.status,
    info.live ? "live" : "ended",
    info.id,
  ]
    .filter(Boolean)
    .join(" ")
    .toLowerCase();
}
