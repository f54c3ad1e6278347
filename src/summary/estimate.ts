/**
 * The summary's estimated cost: what `usage` and `sessions` estimate for a request the agent gave no cost for, by
 * the same price table and rule (src/prices/), so that `summary`, `sessions`, the transcripts, the terminal and the
 * HTML page give one cost for one session (docs/usage.md, "Cost").
 */
import type { Usage, UsageEvent } from "../model/events.ts";
import { type BillableTokens, costAt, priceLookup } from "../prices/price.ts";
import { BUILTIN_PRICES } from "../prices/price-table.ts";

/** How a dialect's usage figures read against the price table (its docs/dialects page says). */
interface TokenMeaning {
  /** `inputTokens` counts the cache reads and writes too (OpenAI, Gemini); else only the input not cached (Anthropic). */
  readonly inputHasCache: boolean;
  /** `outputTokens` leaves the reasoning out (`reasoningTokens` is added to it); else it holds it. */
  readonly reasoningApart: boolean;
}

const ANTHROPIC: TokenMeaning = { inputHasCache: false, reasoningApart: false };
const OPENAI: TokenMeaning = { inputHasCache: true, reasoningApart: false };

/**
 * The dialects whose usage is estimated: one request per `usage` event, and figures whose meaning is documented.
 * The others keep the cost their agent reported, or none (a stream with one total has no requests to price).
 */
const MEANINGS: Readonly<Record<string, TokenMeaning>> = {
  claude: ANTHROPIC,
  "claude-session": ANTHROPIC,
  codex: OPENAI,
  "codex-session": OPENAI,
  "gemini-session": { inputHasCache: true, reasoningApart: true },
  "qwen-session": OPENAI,
  copilot: OPENAI,
};

/** The estimate a summary carries: the USD of the priced requests, and the models that have no price. */
export interface Estimate {
  readonly usd: number;
  readonly unpricedModels: readonly string[];
}

const DISTINCT_MEANINGS = [...new Set(Object.values(MEANINGS))];

const lookup = priceLookup(BUILTIN_PRICES);

/** Prices each request of a stream that came without a cost, for each way its figures may read. */
export class CostEstimate {
  /** By meaning: the sum so far and the models with no price; which one applies is known once the dialect is. */
  private readonly sums = new Map<TokenMeaning, { usd: number; unpriced: Set<string> }>();
  private lastCumulative: Usage | undefined;
  private requests = 0;
  /** The dialect the events say they were read as, for a caller that does not name it (the transcripts). */
  private seenDialect: string | undefined;

  /** A `usage` event without a cost: a request (`delta`), or the running total whose increase is one (`cumulative`). */
  add(event: UsageEvent, model: string | undefined): void {
    this.seenDialect ??= event.source?.dialect;
    if (event.costUsd !== undefined) return;
    let usage = event.usage;
    if (event.scope === "cumulative") {
      const before = this.lastCumulative;
      this.lastCumulative = usage;
      // As `usage` reads Codex: each distinct total is a request, the difference from the one before; a smaller one restarts.
      if (before !== undefined && !fewerThan(usage, before)) usage = difference(usage, before);
    }
    if (totalOf(usage) === 0) return;
    this.requests++;
    const price = model === undefined ? undefined : lookup(model);
    for (const meaning of DISTINCT_MEANINGS) {
      let sum = this.sums.get(meaning);
      if (sum === undefined) {
        sum = { usd: 0, unpriced: new Set() };
        this.sums.set(meaning, sum);
      }
      if (price === undefined) sum.unpriced.add(model ?? "(unknown model)");
      else sum.usd += costAt(price, billable(usage, meaning));
    }
  }

  /** The estimate for a stream of `dialect`; undefined when it has no request to price or its figures' meaning is not known. */
  result(dialect: string | undefined): Estimate | undefined {
    const read = dialect ?? this.seenDialect;
    const meaning = read === undefined ? undefined : MEANINGS[read];
    const sum = meaning === undefined ? undefined : this.sums.get(meaning);
    if (sum === undefined || this.requests === 0) return undefined;
    return { usd: sum.usd, unpricedModels: [...sum.unpriced].sort() };
  }
}

function count(value: number | null): number {
  return value !== null && Number.isFinite(value) && value > 0 ? value : 0;
}

function totalOf(u: Usage): number {
  return count(u.inputTokens) + count(u.outputTokens) + count(u.cacheReadTokens) + count(u.cacheWriteTokens);
}

function fewerThan(a: Usage, b: Usage): boolean {
  return totalOf(a) < totalOf(b);
}

function difference(a: Usage, b: Usage): Usage {
  const minus = (x: number | null, y: number | null): number => Math.max(0, count(x) - count(y));
  return {
    inputTokens: minus(a.inputTokens, b.inputTokens),
    outputTokens: minus(a.outputTokens, b.outputTokens),
    cacheReadTokens: minus(a.cacheReadTokens, b.cacheReadTokens),
    cacheWriteTokens: minus(a.cacheWriteTokens, b.cacheWriteTokens),
    reasoningTokens: minus(a.reasoningTokens, b.reasoningTokens),
  };
}

/** The request's tokens as the table prices them, from figures of the given meaning (as `usage` reads each agent). */
function billable(u: Usage, meaning: TokenMeaning): BillableTokens {
  const cacheRead = count(u.cacheReadTokens);
  const cacheWrite = count(u.cacheWriteTokens);
  const input = count(u.inputTokens);
  return {
    input: meaning.inputHasCache ? Math.max(0, input - cacheRead - cacheWrite) : input,
    output: count(u.outputTokens) + (meaning.reasoningApart ? count(u.reasoningTokens) : 0),
    cacheRead,
    cacheWrite,
    // The event model has no one-hour part of the cache writes: they are priced as the others.
    cacheWrite1h: 0,
  };
}
