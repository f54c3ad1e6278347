/**
 * Prices a request with the price table (src/prices/, shared with `summary`): the model's id matched to the table,
 * the long-context tier applied when the request's prompt exceeds it; `--prices` files laid over the table.
 */
import { readFileSync } from "node:fs";
import { AgentStreamError } from "../errors.ts";
import type { JsonValue } from "../model/events.ts";
import { isJsonObject } from "../model/lossless-integer.ts";
import { textHash } from "./scanner.ts";
import { costAt, priceLookup } from "../prices/price.ts";
import { BUILTIN_PRICES, type ModelPrice, type PriceTable } from "../prices/price-table.ts";
import type { TokenCounts } from "./types.ts";

export interface Pricer {
  readonly date: string;
  /** Changes with any price in the table: what a cache of costs is keyed by. */
  readonly fingerprint: string;
  /** The request's cost in USD, or undefined when the model has no price. */
  cost(model: string | null, tokens: TokenCounts): number | undefined;
  /** The model's prices (for `costAt`, when many requests of one model are priced), or undefined. */
  priceOf(model: string | null): ModelPrice | undefined;
}

export function createPricer(table: PriceTable = BUILTIN_PRICES): Pricer {
  const lookup = priceLookup(table);
  return {
    date: table.date,
    fingerprint: textHash(JSON.stringify(table)),
    cost(model, tokens) {
      const price = model === null ? undefined : lookup(model);
      return price === undefined ? undefined : costAt(price, tokens);
    },
    priceOf: (model) => (model === null ? undefined : lookup(model)),
  };
}

const PRICE_FIELDS = ["input", "output", "cacheRead", "cacheWrite", "cacheWrite1h"] as const;

/**
 * The built-in table with a `--prices` file laid over it: `{"date": "...", "models": {"<model>": {"input": 3,
 * "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75, "cacheWrite1h": 6, "longContext": {"above": 200000, ...}}}}`,
 * USD per million tokens. A file that cannot be used is a caller mistake: it says what is wrong.
 */
export function loadPrices(path: string | undefined): PriceTable {
  if (path === undefined) return BUILTIN_PRICES;
  let value: JsonValue;
  try {
    value = JSON.parse(readFileSync(path, "utf8")) as JsonValue;
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new AgentStreamError("invalid-option", `--prices ${path}: cannot read it as JSON (${reason})`, { cause });
  }
  const models = isJsonObject(value) ? value["models"] : undefined;
  if (!isJsonObject(value) || !isJsonObject(models)) {
    throw new AgentStreamError("invalid-option", `--prices ${path}: expected {"models": {"<model>": {"input": 3, "output": 15, ...}}}`);
  }
  const merged: Record<string, ModelPrice> = { ...BUILTIN_PRICES.models };
  for (const [name, spec] of Object.entries(models)) merged[name] = priceOf(spec, `--prices ${path}: model "${name}"`);
  const date = typeof value["date"] === "string" ? value["date"] : `${BUILTIN_PRICES.date} + ${path}`;
  return { date, models: merged };
}

function priceOf(spec: JsonValue, where: string): ModelPrice {
  if (!isJsonObject(spec)) throw new AgentStreamError("invalid-option", `${where}: expected an object of prices per million tokens`);
  const out: Record<string, number> = {};
  for (const field of PRICE_FIELDS) {
    const v = spec[field];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
      throw new AgentStreamError("invalid-option", `${where}: "${field}" must be a number of USD per million tokens`);
    }
    out[field] = v;
  }
  if (out["input"] === undefined || out["output"] === undefined) {
    throw new AgentStreamError("invalid-option", `${where}: "input" and "output" are required (USD per million tokens)`);
  }
  const price = out as unknown as ModelPrice;
  const long = spec["longContext"];
  if (long === undefined) return price;
  const tier = priceOf(long, `${where} longContext`);
  const above = isJsonObject(long) ? long["above"] : undefined;
  if (typeof above !== "number" || above <= 0) throw new AgentStreamError("invalid-option", `${where}: longContext needs "above" (tokens)`);
  return { ...price, longContext: { ...tier, above } };
}
