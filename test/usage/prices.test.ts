/** The price table: model ids as agents write them, the long-context tier, overrides, and no silent zero. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentStreamError } from "../../src/errors.ts";
import { addCharge, emptyFigures } from "../../src/usage/aggregate.ts";
import type { Charge } from "../../src/usage/ledger.ts";
import { canonicalModel } from "../../src/prices/price.ts";
import { createPricer, loadPrices } from "../../src/usage/prices.ts";
import { type TokenCounts, zeroTokens } from "../../src/usage/types.ts";
import { tempTree } from "./trees.ts";

const tokens = (t: Partial<TokenCounts>): TokenCounts => ({ ...zeroTokens(), ...t });

describe("canonicalModel", () => {
  it.each([
    ["claude-sonnet-4-20250514", "claude-sonnet-4"],
    ["claude-sonnet-4@20250514", "claude-sonnet-4"],
    ["us.anthropic.claude-sonnet-4-20250514-v1:0", "claude-sonnet-4"],
    ["anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"],
    ["claude-opus-4-1-20250805", "claude-opus-4-1"],
    ["claude-3-5-sonnet-latest", "claude-3-5-sonnet"],
    ["claude-opus-4-8[1m]", "claude-opus-4-8"],
    ["models/gemini-2.5-pro", "gemini-2.5-pro"],
    ["gpt-5.1-codex", "gpt-5.1-codex"],
    ["codex-mini-latest", "codex-mini-latest"],
  ])("%s → %s", (id, canonical) => {
    expect(canonicalModel(id)).toBe(canonical);
  });
});

describe("createPricer", () => {
  const pricer = createPricer();

  it("prices each kind of token at its own rate (Sonnet 4: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million)", () => {
    const cost = pricer.cost(
      "claude-sonnet-4-20250514",
      tokens({ input: 50_000, output: 1_000_000, cacheRead: 50_000, cacheWrite: 50_000 }),
    );
    expect(cost).toBeCloseTo(0.05 * 3 + 15 + 0.05 * 0.3 + 0.05 * 3.75, 9);
  });

  it("one-hour cache writes at twice the input price", () => {
    expect(pricer.cost("claude-sonnet-4-5", tokens({ cacheWrite: 100_000, cacheWrite1h: 100_000 }))).toBeCloseTo(0.6, 9);
  });

  it("a prompt over 200k tokens bills the whole request at the long-context prices", () => {
    const at = (input: number) => pricer.cost("claude-sonnet-4", tokens({ input, output: 1000 }));
    expect(at(200_000)).toBeCloseTo(0.6 + 0.015, 9);
    expect(at(200_001)).toBeCloseTo((200_001 * 6 + 1000 * 22.5) / 1e6, 9);
  });

  it("an unknown model has no price (undefined), and a group lists it instead of adding zero", () => {
    expect(pricer.cost("claude-sonnet-5", tokens({ input: 10 }))).toBeUndefined();
    const figures = emptyFigures();
    const charge = (model: string): Charge => ({
      agent: "claude",
      session: "s",
      time: 0,
      model,
      tokens: tokens({ input: 100_000 }),
      costUsd: null,
      sidechain: false,
    });
    addCharge(figures, charge("claude-sonnet-5"), pricer);
    addCharge(figures, charge("claude-sonnet-4"), pricer);
    expect([...figures.unpricedModels]).toEqual(["claude-sonnet-5"]);
    expect(figures.costUsd).toBeCloseTo(0.3, 9);
    expect(figures.estimatedUsd).toBeCloseTo(0.3, 9);
  });

  it("a cost the agent reported is used as it is, not estimated", () => {
    const figures = emptyFigures();
    addCharge(
      figures,
      { agent: "claude", session: "s", time: 0, model: "claude-sonnet-5", tokens: tokens({ input: 5 }), costUsd: 0.25, sidechain: false },
      createPricer(),
    );
    expect(figures).toMatchObject({ costUsd: 0.25, estimatedUsd: 0 });
    expect(figures.unpricedModels.size).toBe(0);
  });
});

describe("loadPrices (--prices)", () => {
  it("adds and replaces models over the built-in table", () => {
    const file = join(tempTree().root, "prices.json");
    writeFileSync(
      file,
      JSON.stringify({
        date: "2026-11-01",
        models: {
          "claude-sonnet-5": { input: 2, output: 10, cacheRead: 0.2, cacheWrite: 2.5 },
          "claude-sonnet-4": { input: 1, output: 1 },
        },
      }),
    );
    const pricer = createPricer(loadPrices(file));
    expect(pricer.date).toBe("2026-11-01");
    expect(pricer.cost("claude-sonnet-5-20261001", tokens({ input: 1_000_000, cacheWrite: 1_000_000 }))).toBeCloseTo(4.5, 9);
    expect(pricer.cost("claude-sonnet-4", tokens({ cacheRead: 1_000_000 }))).toBeCloseTo(1, 9);
    expect(pricer.cost("gpt-5", tokens({ input: 1_000_000 }))).toBeCloseTo(1.25, 9);
  });

  it("a file that cannot be used says what is wrong", () => {
    const file = join(tempTree().root, "prices.json");
    writeFileSync(file, JSON.stringify({ models: { x: { input: "3" } } }));
    expect(() => loadPrices(file)).toThrow(AgentStreamError);
    expect(() => loadPrices(file)).toThrow(/"input" must be a number of USD per million tokens/);
    writeFileSync(file, "[]");
    expect(() => loadPrices(file)).toThrow(/expected \{"models"/);
  });
});
