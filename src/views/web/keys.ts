/**
 * Keyboard use of the page: j / k move to the next / previous entry (a prompt, an answer, a tool
 * call, an error), o opens or closes it, O opens or closes every block, / searches (entries whose
 * text does not match are hidden), Escape clears the search. Keys typed in a field are left alone.
 */
import { el } from "./dom.ts";

/** The search box and its hint, and the key handlers on `document`. */
export function installKeys(root: HTMLElement): HTMLElement {
  const search = el("input", {
    class: "as-search",
    attrs: { type: "search", placeholder: "search (/)", "aria-label": "search the session" },
  });
  const status = el("span", { class: "as-search-status", attrs: { "aria-live": "polite" } });
  const hint = el("span", { class: "as-keys", text: "j/k next/previous · o open · O all · / search" });
  const bar = el("nav", { class: "as-toolbar", attrs: { "aria-label": "session tools" } }, [search, status, hint]);
  search.addEventListener("input", () => filter(root, search.value, status));
  document.addEventListener("keydown", (event) => onKey(root, search, status, event));
  return bar;
}

function onKey(root: HTMLElement, search: HTMLInputElement, status: HTMLElement, event: KeyboardEvent): void {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  const typing = target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement;
  if (typing) {
    if (event.key === "Escape") {
      search.value = "";
      filter(root, "", status);
      search.blur();
    }
    return;
  }
  switch (event.key) {
    case "j":
    case "k":
      move(root, event.key === "j" ? 1 : -1);
      break;
    case "o":
      toggle(current(root));
      break;
    case "O":
      toggleAll(root);
      break;
    case "/":
      search.focus();
      break;
    default:
      return;
  }
  event.preventDefault();
}

/** Entries that can be reached: shown, and not inside a closed block. */
function entries(root: HTMLElement): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(".as-entry")).filter((entry) => entry.offsetParent !== null && !entry.hidden);
}

function current(root: HTMLElement): HTMLElement | undefined {
  const active = document.activeElement;
  return active instanceof HTMLElement && root.contains(active) ? (active.closest<HTMLElement>(".as-entry") ?? undefined) : undefined;
}

function move(root: HTMLElement, by: number): void {
  const list = entries(root);
  if (list.length === 0) return;
  const at = current(root);
  const index = at === undefined ? (by > 0 ? -1 : list.length) : list.indexOf(at);
  const next = list[Math.min(Math.max(index + by, 0), list.length - 1)];
  next?.focus();
  next?.scrollIntoView({ block: "nearest" });
}

function toggle(entry: HTMLElement | undefined): void {
  const details = entry instanceof HTMLDetailsElement ? entry : entry?.querySelector("details");
  if (details instanceof HTMLDetailsElement) details.open = !details.open;
}

function toggleAll(root: HTMLElement): void {
  const all = Array.from(root.querySelectorAll("details"));
  const open = all.some((d) => !d.open);
  for (const details of all) details.open = open;
}

/** Hides the top-level entries whose text does not contain `query` (case-insensitive). */
function filter(root: HTMLElement, query: string, status: HTMLElement): void {
  const needle = query.trim().toLowerCase();
  const top = root.querySelectorAll<HTMLElement>(".as-conversation > *");
  let shown = 0;
  for (const entry of Array.from(top)) {
    const match = needle === "" || (entry.textContent ?? "").toLowerCase().includes(needle);
    entry.hidden = !match;
    if (match) shown++;
  }
  status.textContent = needle === "" ? "" : `${shown} of ${top.length} entries`;
}
