/**
 * The session's header: agent, version, model, directory, start, duration, status, tokens, cost,
 * tool calls, subagents. The facts come from the same fold as `agentstream summary` and the
 * terminal's footer (summary/ and views/shared/view-model.ts), so every view agrees.
 */
import type { RecordStats } from "../../pipeline/create-event-reader.ts";
import type { SessionSummary } from "../../summary/summarize.ts";
import { formatTime } from "../shared/format.ts";
import { sessionFooterView } from "../shared/view-model.ts";
import type { ExportHeader } from "../shared/exported-session.ts";
import { el } from "./dom.ts";
import { visibleLine } from "./text.ts";

/** What the header shows besides the summary. */
export interface HeaderFacts {
  readonly summary: SessionSummary;
  readonly cwd: string | undefined;
  readonly start: string | undefined;
  readonly turnMs: number | undefined;
  readonly export: ExportHeader | undefined;
}

/** The counters a summary is folded with; the page has no input lines to count. */
export const NO_RECORD_STATS: RecordStats = { total: 0, events: 0, blank: 0, text: 0, invalid: 0, tooLong: 0, tooLongBytes: 0, unknown: 0 };

/** Fills `into` with the header's title and facts (replacing what was there). */
export function renderHeader(into: HTMLElement, facts: HeaderFacts): void {
  const view = sessionFooterView(facts.summary, { thinkingTokens: undefined, turnMs: facts.turnMs });
  const title = el("h1", { class: "as-title" }, [
    el("span", { text: visibleLine(view.agent ?? facts.summary.dialect ?? "agent session") }),
    el("span", { class: `as-badge as-status as-status-${view.status}`, text: view.status }),
  ]);
  const rows: [string, string | undefined][] = [
    ["model", view.model],
    ["directory", facts.cwd],
    ["started", facts.start === undefined ? undefined : formatTime(facts.start)],
    ["duration", view.duration],
    ["turns", view.turns === undefined ? undefined : String(view.turns)],
    ["tokens", view.tokens],
    ["cost", view.cost],
    ["tool calls", view.toolCalls === "0" ? undefined : view.toolCalls],
    ["subagents", view.subagents === 0 ? undefined : String(view.subagents)],
    ["session", view.sessionId],
    ["input", facts.export?.input],
    ["read as", facts.export?.dialect],
    ["secrets", redactions(facts.export?.redactions)],
  ];
  const list = el("dl", { class: "as-facts" });
  for (const [label, value] of rows) {
    if (value === undefined || value === "") continue;
    list.append(el("div", {}, [el("dt", { text: label }), el("dd", { text: visibleLine(value), attrs: { dir: "auto" } })]));
  }
  const parts: Node[] = [title, list];
  if (view.error !== undefined) parts.push(el("p", { class: "as-error-line", text: visibleLine(view.error) }));
  into.replaceChildren(...parts);
}

function redactions(counts: Readonly<Record<string, number>> | undefined): string | undefined {
  if (counts === undefined) return undefined;
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${n} ${kind}`);
  return parts.length === 0 ? undefined : `${parts.join(", ")} redacted`;
}
