/** The summary's estimated cost: the price table and rule of `usage`, read with each dialect's token meaning. */
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import type { Usage } from "../../src/model/events.ts";
import type { RecordStats } from "../../src/pipeline/create-event-reader.ts";
import { createSummaryBuilder, type SessionSummary } from "../../src/summary/summarize.ts";
import { build } from "../helpers/events.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { listCaptures } from "../helpers/shared.ts";

const STATS: RecordStats = { total: 0, events: 0, blank: 0, text: 0, invalid: 0, tooLong: 0, tooLongBytes: 0, unknown: 0 };

function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0, reasoning: number | null = null): Usage {
  return { inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite, reasoningTokens: reasoning };
}

function summarize(dialect: string, drafts: readonly object[]): SessionSummary {
  const builder = createSummaryBuilder();
  for (const event of build(drafts.map((d) => ({ source: { dialect }, ...d })))) builder.add(event);
  return builder.result(STATS, dialect);
}

describe("the summary's estimated cost", () => {
  it("prices each Claude request (input without the cache, the long-context tier per request) and marks the sum estimated", () => {
    const summary = summarize("claude-session", [
      { type: "usage", scope: "delta", model: "claude-sonnet-4-20250514", usage: usage(100_000, 0) },
      { type: "usage", scope: "delta", model: "claude-sonnet-4-20250514", usage: usage(0, 100_000, 100_000, 0) },
      { type: "usage", scope: "delta", model: "claude-sonnet-4-20250514", usage: usage(250_000, 0) },
    ]);
    // Sonnet 4: $3 a million input, $15 output, $0.30 cache read; a prompt over 200k: $6 input, all of it.
    expect(summary).toMatchObject({ costUsd: 0.3 + 1.5 + 0.03 + 1.5, costEstimated: true, unpricedModels: [] });
  });

  it("prices a Codex running total by its increases (cached input taken out), a smaller total starting again", () => {
    const summary = summarize("codex-session", [
      { type: "session.started", model: "gpt-5-codex" },
      { type: "usage", scope: "cumulative", usage: usage(1_000_000, 0, 800_000) },
      { type: "usage", scope: "cumulative", usage: usage(1_000_000, 0, 800_000) },
      { type: "usage", scope: "cumulative", usage: usage(2_000_000, 1_000_000, 800_000) },
      { type: "usage", scope: "cumulative", usage: usage(1_000_000, 0) },
    ]);
    // gpt-5-codex: $1.25 input, $10 output, $0.125 cached. 200k + 800k cached; then 1M input and 1M output; then 1M again.
    expect(summary.costUsd).toBeCloseTo(0.25 + 0.1 + 1.25 + 10 + 1.25, 9);
    expect(summary.costEstimated).toBe(true);
  });

  it("adds Gemini's thoughts to its output, as `usage` does", () => {
    const summary = summarize("gemini-session", [
      { type: "usage", scope: "delta", model: "gemini-2.5-pro", usage: usage(1_000_000, 0, 0, 0, 100_000) },
    ]);
    const without = summarize("gemini-session", [{ type: "usage", scope: "delta", model: "gemini-2.5-pro", usage: usage(1_000_000, 0) }]);
    expect((summary.costUsd ?? 0) - (without.costUsd ?? 0)).toBeGreaterThan(0);
  });

  it("is null with the models listed when one has no price, never 0", () => {
    const summary = summarize("claude-session", [
      { type: "usage", scope: "delta", model: "claude-sonnet-4-20250514", usage: usage(10, 10) },
      { type: "usage", scope: "delta", model: "claude-sonnet-5", usage: usage(10, 10) },
    ]);
    expect(summary).toMatchObject({ costUsd: null, costEstimated: false, unpricedModels: ["claude-sonnet-5"] });
  });

  it("gives way to what the agent reported, and is not made for a dialect whose figures' meaning is not known", () => {
    const reported = summarize("claude", [
      { type: "usage", scope: "delta", model: "claude-sonnet-4-20250514", usage: usage(10, 10) },
      { type: "session.completed", status: "success", costUsd: 0.5 },
    ]);
    expect(reported).toMatchObject({ costUsd: 0.5, costEstimated: false });
    const unknown = summarize("cline", [{ type: "usage", scope: "delta", model: "claude-sonnet-4-20250514", usage: usage(10, 10) }]);
    expect(unknown).toMatchObject({ costUsd: null, costEstimated: false, unpricedModels: [] });
  });
});

const SAVED = new Set(["claude-session", "codex-session", "gemini-session"]);
const savedSessions = listCaptures().filter(([dialect, path]) => SAVED.has(dialect) && path.endsWith(".jsonl"));

describe.skipIf(savedSessions.length === 0)("one cost for a saved session: summary --json and sessions --json", () => {
  it.each(savedSessions)("%s %s", async (_dialect, path) => {
    const cli = async (...args: string[]): Promise<unknown> => {
      const io = fakeIo();
      expect(await run(args, io)).toBe(0);
      return JSON.parse(io.out());
    };
    const summary = (await cli("summary", "--json", path)) as SessionSummary;
    const [session] = (await cli("sessions", "--json", "--no-cache", path)) as {
      costUsd: number | null;
      unpricedModels: string[];
      requests: number;
    }[];
    // A log with no request (a goal record, an API error): `sessions` says $0 for nothing billed, the summary null.
    if (session === undefined || session.requests === 0) expect(summary.costUsd).toBeNull();
    else expect([summary.costUsd, summary.unpricedModels]).toEqual([session.costUsd, session.unpricedModels]);
  });
});

const ccviewer = savedSessions.find(([, path]) => path.includes("ccviewer_1.0.98"))?.[1];

describe.skipIf(ccviewer === undefined)("one rule for an estimated cost in every view (the ccviewer session)", () => {
  const shown = async (...args: string[]): Promise<string> => {
    const io = fakeIo();
    expect(await run([...args, ccviewer ?? ""], io)).toBe(0);
    return io.out();
  };

  it("reads ~$2.39 in summary's text, render's footer, the text transcript and sessions' table", async () => {
    expect(await shown("summary")).toMatch(/^cost\s+~\$2\.39$/m);
    expect(await shown("render", "--mode", "none")).toMatch(/■ ended · .* · ~\$2\.39\n/);
    expect(await shown("convert", "--to", "text")).toContain("~$2.39");
    expect(await shown("sessions", "--no-cache")).toContain("~$2.39");
  });
});
