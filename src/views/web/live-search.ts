/**
 * The live page's search box over every served session (`GET /api/search`, docs/web.md): words or "a phrase" (or a
 * regular expression), the hits newest first with their agent, project and time and the snippet with its matches
 * marked, the agents and tools among the hits as facets that narrow the search. Agent text reaches the DOM as text
 * nodes only: a snippet is cut at its match ranges and each piece made visible, the matches in `<mark>` elements.
 */
import { formatTime } from "../shared/format.ts";
import { el } from "./dom.ts";
import type { LiveSearchAnswer, LiveSearchHit } from "./live-wire.ts";
import { visible, visibleLine } from "./text.ts";

/** Typing settles this long before the server is asked. */
const TYPING_MS = 200;
/** A search still unanswered this long says why. */
const SLOW_MS = 1500;
/** Hits asked for at once. */
const LIMIT = 50;
/** Characters of a snippet shown around its first match. */
const SNIPPET_CHARS = 400;

type Facet = "agent" | "tool";

export class SearchBox {
  readonly input = el("input", {
    class: "as-search as-global-search",
    attrs: { type: "search", placeholder: "search every session (s)", "aria-label": "search every session" },
  });
  /** The results' panel, below the page's bar (hidden while there is nothing to show). */
  readonly panel = el("section", { class: "as-search-panel", attrs: { "aria-label": "search results" } });
  private readonly regex = el("input", { attrs: { type: "checkbox", "aria-label": "regular expression" } });
  private readonly status = el("p", { class: "as-search-line", attrs: { role: "status", "aria-live": "polite" } });
  private readonly facets = el("div", { class: "as-search-facets" });
  private readonly results = el("ol", { class: "as-search-hits" });
  private readonly moreButton = el("button", { class: "as-search-more", text: "more hits", attrs: { type: "button" } });
  /** The hits listed, and the search that found them (for the next page). */
  private hits: LiveSearchHit[] = [];
  private params = new URLSearchParams();
  private readonly chosen: Record<Facet, string | undefined> = { agent: undefined, tool: undefined };
  private timer: number | undefined;
  private inFlight: AbortController | undefined;
  private readonly onOpen: (hit: LiveSearchHit) => void;

  constructor(onOpen: (hit: LiveSearchHit) => void) {
    this.onOpen = onOpen;
    this.panel.hidden = true;
    this.moreButton.hidden = true;
    this.moreButton.addEventListener("click", () => this.more());
    this.panel.append(this.status, this.facets, this.results, this.moreButton);
    this.input.addEventListener("input", () => this.soon());
    this.regex.addEventListener("change", () => this.soon());
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        // Ours alone: the open sessions' filter (./keys.ts) keeps its text.
        event.stopPropagation();
        event.preventDefault();
        this.clear();
      } else if (event.key === "Enter") this.run();
      else if (event.key === "ArrowDown") this.results.querySelector<HTMLElement>(".as-search-hit")?.focus();
    });
    this.results.addEventListener("keydown", (event) => this.onResultKey(event));
  }

  /** The box and its regex switch, for the page's bar. */
  get controls(): HTMLElement {
    const regex = el("label", { class: "as-search-regex", attrs: { title: "a JavaScript regular expression" } }, [
      this.regex,
      document.createTextNode(" regex"),
    ]);
    return el("div", { class: "as-search-box", attrs: { role: "search" } }, [this.input, regex]);
  }

  focus(): void {
    this.input.focus();
    this.input.select();
  }

  clear(): void {
    this.input.value = "";
    this.chosen.agent = undefined;
    this.chosen.tool = undefined;
    this.inFlight?.abort();
    window.clearTimeout(this.timer);
    this.hits = [];
    this.results.replaceChildren();
    this.moreButton.hidden = true;
    this.facets.replaceChildren();
    this.status.textContent = "";
    this.panel.hidden = true;
    this.input.blur();
  }

  private soon(): void {
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.run(), TYPING_MS);
  }

  private run(): void {
    window.clearTimeout(this.timer);
    const text = this.input.value.trim();
    if (text === "" && this.chosen.agent === undefined && this.chosen.tool === undefined) {
      this.clear();
      return;
    }
    const params = new URLSearchParams({ limit: String(LIMIT) });
    if (text !== "") params.set("q", text);
    if (this.regex.checked) params.set("regex", "1");
    for (const facet of ["agent", "tool"] as const) {
      const value = this.chosen[facet];
      if (value !== undefined) params.set(facet, value);
    }
    this.params = params;
    this.hits = [];
    this.ask(params);
  }

  /** The next page of the same search, added below the hits listed. */
  private more(): void {
    const params = new URLSearchParams(this.params);
    params.set("offset", String(this.hits.length));
    this.ask(params);
  }

  private ask(params: URLSearchParams): void {
    this.inFlight?.abort();
    const controller = new AbortController();
    this.inFlight = controller;
    this.panel.hidden = false;
    this.panel.dataset.state = "searching";
    this.panel.dataset.query = params.toString();
    this.status.textContent = "searching…";
    // The first search builds the index of every served log (in the server's worker): say why it takes a while.
    window.setTimeout(() => {
      if (this.inFlight === controller && this.panel.dataset.state === "searching")
        this.status.textContent = "searching… (the first search indexes the served sessions; later ones read only what changed)";
    }, SLOW_MS);
    void this.fetchHits(params, controller);
  }

  private async fetchHits(params: URLSearchParams, controller: AbortController): Promise<void> {
    let answer: LiveSearchAnswer;
    try {
      const response = await fetch(`/api/search?${params}`, {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
        signal: controller.signal,
      });
      const body = (await response.json()) as LiveSearchAnswer | { error: string };
      if (controller.signal.aborted) return;
      if (!response.ok || "error" in body) {
        this.show([], `${"error" in body ? body.error : `the server answered ${response.status}`}`, "error", this.hits.length === 0);
        return;
      }
      answer = body;
    } catch {
      if (!controller.signal.aborted) this.show([], "the server cannot be reached", "error", this.hits.length === 0);
      return;
    }
    const first = this.hits.length === 0;
    this.hits.push(...answer.hits);
    const count = `${this.hits.length}${answer.more ? "+" : ""} hit${this.hits.length === 1 ? "" : "s"}`;
    this.show(answer.hits, this.hits.length === 0 ? "nothing found" : count, "done", first);
    this.moreButton.hidden = !answer.more;
  }

  /** Lists `hits` (in place of the ones listed, or below them for the next page); the facets count every hit listed. */
  private show(hits: readonly LiveSearchHit[], line: string, state: string, replace = true): void {
    this.status.textContent = visibleLine(line);
    this.panel.dataset.state = state;
    if (replace) this.results.replaceChildren();
    this.results.append(...hits.map((hit) => el("li", {}, [this.hitButton(hit)])));
    this.renderFacets(this.hits);
    if (state !== "done") this.moreButton.hidden = true;
  }

  /** The agents and tools among the hits (counts of the hits shown), each a switch that narrows the search to it. */
  private renderFacets(hits: readonly LiveSearchHit[]): void {
    const groups: HTMLElement[] = [];
    for (const facet of ["agent", "tool"] as const) {
      const counts = new Map<string, number>();
      for (const hit of hits) {
        const value = hit[facet];
        if (value !== null) counts.set(value, (counts.get(value) ?? 0) + 1);
      }
      const picked = this.chosen[facet];
      if (picked !== undefined && !counts.has(picked)) counts.set(picked, 0);
      if (counts.size === 0) continue;
      const buttons = [...counts].map(([value, count]) => {
        const on = picked === value;
        const button = el("button", {
          class: "as-facet",
          text: `${visibleLine(value)} ${count}`,
          attrs: { type: "button", "aria-pressed": String(on), "data-facet": facet },
        });
        button.addEventListener("click", () => {
          this.chosen[facet] = on ? undefined : value;
          this.run();
        });
        return button;
      });
      groups.push(
        el("div", { class: "as-facet-group", attrs: { role: "group", "aria-label": facet } }, [
          el("span", { class: "as-facet-name", text: facet }),
          ...buttons,
        ]),
      );
    }
    this.facets.replaceChildren(...groups);
  }

  private hitButton(hit: LiveSearchHit): HTMLElement {
    const what = hit.tool === null ? hit.field : `${hit.tool} ${hit.field}`;
    const head = el("span", { class: "as-hit-line" }, [
      el("span", { class: "as-hit-agent", text: visibleLine(hit.agent) }),
      el("bdi", { class: "as-hit-project", text: visibleLine(hit.project ?? "") }),
      el("span", { class: "as-hit-time", text: hit.time === null ? "" : formatTime(hit.time) }),
      el("span", { class: "as-hit-field", text: visibleLine(what) }),
    ]);
    const button = el(
      "button",
      {
        class: "as-search-hit",
        attrs: { type: "button", "data-session": hit.session, "data-event": String(hit.event) },
      },
      [head, snippetOf(hit)],
    );
    button.addEventListener("click", () => this.onOpen(hit));
    return button;
  }

  /** ↑/↓ between hits (↑ from the first: back to the box), Escape back to the box. */
  private onResultKey(event: KeyboardEvent): void {
    const buttons = Array.from(this.results.querySelectorAll<HTMLElement>(".as-search-hit"));
    const at = buttons.indexOf(event.target as HTMLElement);
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      const next = at + (event.key === "ArrowDown" ? 1 : -1);
      (next < 0 ? this.input : (buttons[Math.min(next, buttons.length - 1)] ?? this.input)).focus();
      event.preventDefault();
    } else if (event.key === "Escape") {
      this.input.focus();
      event.preventDefault();
    }
  }
}

/**
 * The snippet as text nodes, its matches in `<mark>`: cut at the ranges first (they count the snippet's own
 * characters), each piece then made visible on its own; only the part around the first match when it is long.
 */
function snippetOf(hit: LiveSearchHit): HTMLElement {
  const text = hit.snippet;
  const ranges = [...hit.ranges].filter(([start, end]) => start >= 0 && end > start && end <= text.length).sort((a, b) => a[0] - b[0]);
  const first = ranges[0]?.[0] ?? 0;
  const from = text.length <= SNIPPET_CHARS ? 0 : Math.max(0, Math.min(first - SNIPPET_CHARS / 4, text.length - SNIPPET_CHARS));
  const to = Math.min(text.length, from + SNIPPET_CHARS);
  const box = el("span", { class: "as-hit-snippet" });
  if (from > 0) box.append("…");
  let at = from;
  for (const [start, end] of ranges) {
    if (end <= at || start >= to) continue;
    if (start > at) box.append(visible(text.slice(at, start)));
    box.append(el("mark", { text: visible(text.slice(Math.max(start, at), Math.min(end, to))) }));
    at = Math.min(end, to);
  }
  if (at < to) box.append(visible(text.slice(at, to)));
  if (to < text.length) box.append("…");
  return box;
}
