/**
 * The price table shipped with agentstream: USD per million tokens, by model, as the providers' public price
 * pages listed them on the date below. Nothing is fetched at run time; `--prices <file>` adds or replaces
 * models (docs/usage.md). A model missing here is listed as unpriced, never priced as zero.
 *
 * Anthropic: cache reads 0.1× input, 5-minute cache writes 1.25×, one-hour writes 2×; Sonnet 4 and 4.5 bill a
 * request whose prompt (input + cache read + cache write) exceeds 200k tokens at the long-context prices,
 * all of its tokens. OpenAI: cached input at the listed discount, no cache-write surcharge. Google: Gemini
 * Pro models bill a prompt over 200k tokens at the higher tier.
 */

export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  /** Missing: cache reads are billed as input (no discount assumed). */
  readonly cacheRead?: number;
  /** Missing: cache writes are billed as input. */
  readonly cacheWrite?: number;
  /** One-hour cache writes (Anthropic); missing: as `cacheWrite`. */
  readonly cacheWrite1h?: number;
  /** A request whose prompt exceeds `above` tokens is billed at these prices, all of its tokens. */
  readonly longContext?: Omit<ModelPrice, "longContext"> & { readonly above: number };
}

export interface PriceTable {
  /** When the figures were checked against the providers' price pages. */
  readonly date: string;
  readonly models: Readonly<Record<string, ModelPrice>>;
}

const opus4: ModelPrice = { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75, cacheWrite1h: 30 };
const sonnet4: ModelPrice = {
  input: 3,
  output: 15,
  cacheRead: 0.3,
  cacheWrite: 3.75,
  cacheWrite1h: 6,
  longContext: { above: 200_000, input: 6, output: 22.5, cacheRead: 0.6, cacheWrite: 7.5, cacheWrite1h: 12 },
};
const sonnet3: ModelPrice = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 };
const gpt5: ModelPrice = { input: 1.25, output: 10, cacheRead: 0.125 };
const gpt5mini: ModelPrice = { input: 0.25, output: 2, cacheRead: 0.025 };

export const BUILTIN_PRICES: PriceTable = {
  date: "2025-11-24",
  models: {
    "claude-opus-4-5": { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, cacheWrite1h: 10 },
    "claude-opus-4-1": opus4,
    "claude-opus-4": opus4,
    "claude-3-opus": opus4,
    "claude-sonnet-4-5": sonnet4,
    "claude-sonnet-4": sonnet4,
    "claude-3-7-sonnet": sonnet3,
    "claude-3-5-sonnet": sonnet3,
    "claude-haiku-4-5": { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, cacheWrite1h: 2 },
    "claude-3-5-haiku": { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1, cacheWrite1h: 1.6 },
    "claude-3-haiku": { input: 0.25, output: 1.25, cacheRead: 0.03, cacheWrite: 0.3, cacheWrite1h: 0.5 },
    "gpt-5.1": gpt5,
    "gpt-5.1-codex": gpt5,
    "gpt-5.1-codex-mini": gpt5mini,
    "gpt-5": gpt5,
    "gpt-5-codex": gpt5,
    "gpt-5-mini": gpt5mini,
    "gpt-5-nano": { input: 0.05, output: 0.4, cacheRead: 0.005 },
    "gpt-4.1": { input: 2, output: 8, cacheRead: 0.5 },
    "gpt-4.1-mini": { input: 0.4, output: 1.6, cacheRead: 0.1 },
    o3: { input: 2, output: 8, cacheRead: 0.5 },
    "o4-mini": { input: 1.1, output: 4.4, cacheRead: 0.275 },
    "codex-mini-latest": { input: 1.5, output: 6, cacheRead: 0.375 },
    "gemini-3-pro-preview": {
      input: 2,
      output: 12,
      cacheRead: 0.2,
      longContext: { above: 200_000, input: 4, output: 18, cacheRead: 0.4 },
    },
    "gemini-2.5-pro": {
      input: 1.25,
      output: 10,
      cacheRead: 0.125,
      longContext: { above: 200_000, input: 2.5, output: 15, cacheRead: 0.25 },
    },
    "gemini-2.5-flash": { input: 0.3, output: 2.5, cacheRead: 0.03 },
    "gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cacheRead: 0.01 },
    "gemini-2.0-flash": { input: 0.1, output: 0.4, cacheRead: 0.025 },
  },
};
