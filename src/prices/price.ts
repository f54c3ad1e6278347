/**
 * The one rule for an estimated cost, shared by `usage`, `sessions` and the summary every view shows (browser-safe):
 * the model's id matched to the price table (provider prefixes, dates, versions and context suffixes taken off),
 * the long-context tier applied when the request's prompt exceeds it (docs/usage.md, "Cost").
 */
import type { ModelPrice, PriceTable } from "./price-table.ts";

/** A request's tokens as the table prices them: input not cached, output with reasoning, cache reads and writes. */
export interface BillableTokens {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  /** All cache writes; `cacheWrite1h` is the part written with the one-hour lifetime. */
  readonly cacheWrite: number;
  readonly cacheWrite1h: number;
}

/**
 * The table's name for a model id as agents write it: `claude-sonnet-4-20250514`, `claude-sonnet-4@20250514`
 * (Vertex), `us.anthropic.claude-sonnet-4-20250514-v1:0` (Bedrock), `anthropic/claude-sonnet-4.5`,
 * `claude-opus-4-8[1m]` and `models/gemini-2.5-pro` all lose what is not the model.
 */
export function canonicalModel(model: string): string {
  let id = model.trim().toLowerCase();
  id = id.slice(id.lastIndexOf("/") + 1);
  id = id.replace(/^(?:[a-z]{2,4}\.)?anthropic\./, "");
  id = id.replace(/\[[^\]]*\]$/, "");
  id = id.replace(/-v\d+(?::\d+)?$/, "");
  id = id.replace(/[@-]\d{8}$/, "");
  id = id.replace(/-latest$/, (suffix) => (id === "codex-mini-latest" ? suffix : ""));
  if (id.startsWith("claude-")) id = id.replace(/(\d)\.(\d)/g, "$1-$2");
  return id;
}

/** A table's prices of a model id as agents write it (matched as is, then by `canonicalModel`), or undefined. */
export function priceLookup(table: PriceTable): (model: string) => ModelPrice | undefined {
  const byCanonical = new Map<string, ModelPrice>();
  for (const [name, price] of Object.entries(table.models)) byCanonical.set(canonicalModel(name), price);
  const cache = new Map<string, ModelPrice | null>();
  return (model) => {
    let price = cache.get(model);
    if (price === undefined) {
      price = (Object.hasOwn(table.models, model) ? table.models[model] : undefined) ?? byCanonical.get(canonicalModel(model)) ?? null;
      cache.set(model, price);
    }
    return price ?? undefined;
  };
}

/** USD for one request at one model's prices (per million tokens). */
export function costAt(price: ModelPrice, t: BillableTokens): number {
  const prompt = t.input + t.cacheRead + t.cacheWrite;
  const long = price.longContext;
  const p = long !== undefined && prompt > long.above ? long : price;
  const cacheWrite = p.cacheWrite ?? p.input;
  const cacheWrite1h = p.cacheWrite1h ?? cacheWrite;
  const fiveMinuteWrites = Math.max(0, t.cacheWrite - t.cacheWrite1h);
  const micro =
    t.input * p.input +
    t.output * p.output +
    t.cacheRead * (p.cacheRead ?? p.input) +
    fiveMinuteWrites * cacheWrite +
    t.cacheWrite1h * cacheWrite1h;
  return micro / 1e6;
}
