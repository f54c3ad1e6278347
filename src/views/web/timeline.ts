/**
 * Tokens and cost over the session: one bar per step that reported usage (a turn, a message, a
 * cumulative count's increase), stacked input / cache / output, and the cost so far as a line.
 * Built with SVG elements and attributes (no markup, no inline style: the export's CSP allows none).
 */
import type { AgentEvent, Usage } from "../../model/events.ts";
import { formatCost, formatCount } from "../shared/format.ts";
import { el, svg } from "./dom.ts";

/** One step that reported usage. */
export interface TimelinePoint {
  readonly seq: number;
  readonly input: number;
  readonly cache: number;
  readonly output: number;
  /** Cost so far, when any step reported one. */
  readonly costSoFar: number | undefined;
}

/** Collects usage steps from the root session's events. */
export class Timeline {
  readonly points: TimelinePoint[] = [];
  private cost: number | undefined;
  private cumulative: Usage | undefined;

  /** Takes the usage of `event` (when it is a root-session usage step). */
  add(event: AgentEvent): boolean {
    if (event.type === "usage") {
      if (event.scope === "cumulative") {
        const step = this.cumulative === undefined ? event.usage : minus(event.usage, this.cumulative);
        this.cumulative = event.usage;
        return this.push(event.seq, step, event.costUsd);
      }
      return this.push(event.seq, event.usage, event.costUsd);
    }
    if (event.type === "turn.completed" && (event.usage !== undefined || event.costUsd !== undefined))
      return this.push(event.seq, event.usage, event.costUsd);
    return false;
  }

  private push(seq: number, usage: Usage | undefined, cost: number | undefined): boolean {
    if (cost !== undefined) this.cost = (this.cost ?? 0) + cost;
    const input = usage?.inputTokens ?? 0;
    const cache = (usage?.cacheReadTokens ?? 0) + (usage?.cacheWriteTokens ?? 0);
    const output = usage?.outputTokens ?? 0;
    if (input + cache + output === 0 && cost === undefined) return false;
    this.points.push({ seq, input, cache, output, costSoFar: this.cost });
    return true;
  }
}

function minus(a: Usage, b: Usage): Usage {
  const d = (x: number | null, y: number | null): number | null => (x === null ? null : Math.max(0, x - (y ?? 0)));
  return {
    inputTokens: d(a.inputTokens, b.inputTokens),
    outputTokens: d(a.outputTokens, b.outputTokens),
    cacheReadTokens: d(a.cacheReadTokens, b.cacheReadTokens),
    cacheWriteTokens: d(a.cacheWriteTokens, b.cacheWriteTokens),
    reasoningTokens: d(a.reasoningTokens, b.reasoningTokens),
  };
}

const WIDTH = 600;
const HEIGHT = 64;

/** Fills `into` with the chart (nothing when fewer than two steps reported usage). */
export function renderTimeline(into: HTMLElement, points: readonly TimelinePoint[]): void {
  if (points.length < 2) {
    into.replaceChildren();
    into.hidden = true;
    return;
  }
  into.hidden = false;
  const most = Math.max(...points.map((p) => p.input + p.cache + p.output), 1);
  const lastCost = points.at(-1)?.costSoFar;
  const step = WIDTH / points.length;
  const bar = Math.max(step - 1, 0.5);
  const chart = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, preserveAspectRatio: "none", class: "as-chart", role: "img" });
  const costPath: string[] = [];
  points.forEach((p, i) => {
    const x = i * step;
    let y = HEIGHT;
    for (const [value, name] of [
      [p.input, "input"],
      [p.cache, "cache"],
      [p.output, "output"],
    ] as const) {
      const h = (value / most) * (HEIGHT - 2);
      if (h <= 0) continue;
      y -= h;
      const rect = svg("rect", { x, y, width: bar, height: h, class: `as-bar-${name}` });
      rect.append(svg("title", {}, [document.createTextNode(`${formatCount(value)} ${name} tokens`)]));
      chart.append(rect);
    }
    if (p.costSoFar !== undefined && lastCost !== undefined && lastCost > 0)
      costPath.push(
        `${costPath.length === 0 ? "M" : "L"}${(x + bar / 2).toFixed(1)} ${(HEIGHT - (p.costSoFar / lastCost) * (HEIGHT - 2)).toFixed(1)}`,
      );
  });
  if (costPath.length > 1) chart.append(svg("path", { d: costPath.join(" "), class: "as-cost-line" }));
  const total = points.reduce((sum, p) => sum + p.input + p.cache + p.output, 0);
  const caption = `${points.length} steps · ${formatCount(total)} tokens${lastCost !== undefined ? ` · ${formatCost(lastCost)}` : ""}`;
  into.replaceChildren(
    el("h2", { text: "Tokens and cost" }),
    chart,
    el("p", { class: "as-legend" }, [
      el("span", { class: "as-key as-key-input", text: "input" }),
      el("span", { class: "as-key as-key-cache", text: "cache" }),
      el("span", { class: "as-key as-key-output", text: "output" }),
      el("span", { class: "as-key as-key-cost", text: "cost so far" }),
      el("span", { class: "as-meta", text: ` ${caption}` }),
    ]),
  );
}
