/**
 * The live page (`agentstream serve`, `agentstream run --serve`): the session list, refreshed every
 * few seconds, and the open sessions side by side, each streaming as its agent works. The open
 * sessions are kept in the address's fragment (`#open=id,id`), so a reload shows the same ones.
 */
import { el } from "./dom.ts";
import { installKeys } from "./keys.ts";
import { LivePane } from "./live-pane.ts";
import { SessionList } from "./live-list.ts";
import { SearchBox } from "./live-search.ts";
import type { LiveSearchHit, LiveSessionInfo, LiveSourceStatus } from "./live-wire.ts";
import { visibleLine } from "./text.ts";

/** How often the list asks the server again. */
const LIST_REFRESH_MS = 3000;
/** Sessions side by side; opening one more closes the oldest. */
const MAX_PANES = 4;

export function startLive(root: HTMLElement): void {
  const panes: LivePane[] = [];
  const area = el("div", { class: "as-panes", attrs: { "aria-label": "open sessions" } });
  const empty = el("p", { class: "as-panes-empty", text: "Choose a session in the list (↑/↓, Enter)." });
  area.append(empty);
  const list = new SessionList((info) => open(info));
  const status = el("span", { class: "as-connection", attrs: { role: "status" } });
  const search = new SearchBox((hit) => void openHit(hit));
  const bar = el("header", { class: "as-live-bar" }, [el("span", { class: "as-live-name", text: "agentstream" }), search.controls, status]);
  root.append(
    bar,
    search.panel,
    el("div", { class: "as-live" }, [list.element, el("div", { class: "as-live-main" }, [installKeys(area), area])]),
  );

  const changed = (): void => {
    const ids = panes.map((p) => p.id);
    list.setOpen(new Set(ids));
    empty.hidden = panes.length > 0;
    area.dataset.panes = String(panes.length);
    history.replaceState(null, "", ids.length === 0 ? location.pathname : `#open=${ids.map(encodeURIComponent).join(",")}`);
  };
  const close = (pane: LivePane): void => {
    pane.close();
    panes.splice(panes.indexOf(pane), 1);
    changed();
  };
  function open(info: LiveSessionInfo): LivePane {
    const already = panes.find((p) => p.id === info.id);
    if (already !== undefined) {
      already.element.scrollIntoView({ block: "nearest" });
      return already;
    }
    if (panes.length >= MAX_PANES) close(panes[0] as LivePane);
    const pane = new LivePane(info, close);
    panes.push(pane);
    area.append(pane.element);
    changed();
    // In one column (a phone) the pane is below the list: bring it into view. Side by side, it is in view already.
    if (window.matchMedia("(max-width: 760px)").matches) pane.element.scrollIntoView({ block: "nearest" });
    return pane;
  }
  /** A search hit: its session opened (or the pane that shows it), scrolled to its event. */
  async function openHit(hit: LiveSearchHit): Promise<void> {
    const info = list.find(hit.session) ?? (await fetchJson<LiveSessionInfo>(`/api/sessions/${encodeURIComponent(hit.session)}`));
    if (info === undefined) return;
    open(info).reveal(hit.event);
  }

  installPageKeys(list, search, panes, close);
  const wanted = openFromFragment();
  let first = true;
  const refresh = async (): Promise<void> => {
    const [sessions, sources] = await Promise.all([
      fetchJson<LiveSessionInfo[]>("/api/sessions"),
      fetchJson<LiveSourceStatus[]>("/api/sources"),
    ]);
    status.textContent = sessions === undefined ? "server unreachable" : describeSources(sources ?? []);
    status.dataset.sources = (sources ?? []).map((s) => `${s.kind}:${s.state}`).join(" ");
    if (sessions === undefined) return;
    list.update(sessions);
    for (const pane of panes) {
      const info = list.find(pane.id);
      if (info !== undefined) pane.update(info);
    }
    // `run --serve` has one session: show it at once.
    if (first && wanted.length === 0 && sessions.length === 1) wanted.push((sessions[0] as LiveSessionInfo).id);
    first = false;
    for (const id of wanted.splice(0)) {
      const info = list.find(id);
      if (info !== undefined) open(info);
    }
  };
  void refresh();
  window.setInterval(() => void refresh(), LIST_REFRESH_MS);
}

async function fetchJson<T>(path: string): Promise<T | undefined> {
  try {
    const response = await fetch(path, { credentials: "same-origin", headers: { Accept: "application/json" } });
    return response.ok ? ((await response.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** The sources that cannot be read now (a NATS server down): what the list lacks, and why. */
function describeSources(sources: readonly LiveSourceStatus[]): string {
  return sources
    .filter((s) => s.state !== "available")
    .map((s) =>
      visibleLine(
        `${s.description}: ${s.state === "connecting" ? "connecting…" : "unavailable"}${s.detail === null ? "" : ` (${s.detail})`}`,
      ),
    )
    .join("; ");
}

function openFromFragment(): string[] {
  const match = /^#open=(.*)$/.exec(location.hash);
  return match === null ? [] : (match[1] ?? "").split(",").filter(Boolean).map(decodeURIComponent);
}

/**
 * f: filter the list; s: search every session (`/` is the open sessions' search, ./keys.ts's); x: close the session
 * holding the focus (the entry keys are ./keys.ts's).
 */
function installPageKeys(list: SessionList, search: SearchBox, panes: readonly LivePane[], close: (pane: LivePane) => void): void {
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey || target instanceof HTMLInputElement) return;
    if (event.key === "f") {
      list.filter.focus();
      event.preventDefault();
    } else if (event.key === "s") {
      search.focus();
      event.preventDefault();
    } else if (event.key === "x") {
      const pane = panes.find((p) => target instanceof Node && p.element.contains(target));
      if (pane !== undefined) close(pane);
    }
  });
}
