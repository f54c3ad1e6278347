/**
 * agentstream usage beside ccusage (offline, on the same Claude logs): equal totals where its rules are right,
 * and each difference the one docs/usage.md explains. The dev dependency is ccusage 18.0.11 (plain JavaScript);
 * CCUSAGE_BIN points at another build.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { claudeLine, tempTree } from "./trees.ts";

function findCcusage(): string | undefined {
  const candidates = [process.env.CCUSAGE_BIN, join(repoRoot, "node_modules", ".bin", "ccusage")].filter(
    (c): c is string => c !== undefined,
  );
  for (const bin of candidates) {
    const probe = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 20_000 });
    if (probe.status === 0 && /^\d+\.\d+\.\d+/.test(probe.stdout.trim())) return bin;
  }
  return undefined;
}

const ccusage = findCcusage();
if (ccusage === undefined) console.log("ccusage comparison skipped: no runnable ccusage (set CCUSAGE_BIN; docs/usage.md)");

interface DayTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  cost: number;
}

function theirs(configDir: string): Map<string, DayTotals> {
  const out = execFileSync(ccusage as string, ["daily", "--offline", "--json", "--timezone", "UTC"], {
    encoding: "utf8",
    env: { ...process.env, CLAUDE_CONFIG_DIR: configDir, TZ: "UTC", NO_COLOR: "1" },
    timeout: 60_000,
  });
  const json = JSON.parse(out) as { daily: (Omit<DayTotals, "cost"> & { date: string; totalCost: number })[] };
  return new Map(json.daily.map((d) => [d.date, { ...d, cost: d.totalCost }]));
}

async function ours(configDir: string): Promise<Map<string, DayTotals>> {
  const io = fakeIo();
  expect(await run(["usage", join(configDir, "projects"), "--json", "--tz", "UTC", "--no-cache"], io)).toBe(0);
  const json = JSON.parse(io.out()) as {
    groups: { day: string; costUsd: number; tokens: { input: number; output: number; cacheRead: number; cacheWrite: number } }[];
  };
  return new Map(
    json.groups.map((g) => [
      g.day,
      {
        inputTokens: g.tokens.input,
        outputTokens: g.tokens.output,
        cacheReadTokens: g.tokens.cacheRead,
        cacheCreationTokens: g.tokens.cacheWrite,
        cost: g.costUsd,
      },
    ]),
  );
}

/** ccusage 18's rule, written out: the first line of each message id + requestId; every line when requestId is missing. */
function firstLineRule(files: string[]): Map<string, Omit<DayTotals, "cost">> {
  const seen = new Set<string>();
  const days = new Map<string, Omit<DayTotals, "cost">>();
  for (const file of files) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const rec = JSON.parse(line) as {
        type?: string;
        requestId?: string;
        timestamp?: string;
        message?: { id?: string; usage?: Record<string, number> };
      };
      const usage = rec.message?.usage;
      if (rec.type !== "assistant" || usage === undefined || rec.timestamp === undefined) continue;
      if (rec.requestId !== undefined && rec.message?.id !== undefined) {
        const key = `${rec.message.id}|${rec.requestId}`;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      const day = rec.timestamp.slice(0, 10);
      const d = days.get(day) ?? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheCreationTokens: 0 };
      d.inputTokens += usage["input_tokens"] ?? 0;
      d.outputTokens += usage["output_tokens"] ?? 0;
      d.cacheReadTokens += usage["cache_read_input_tokens"] ?? 0;
      d.cacheCreationTokens += usage["cache_creation_input_tokens"] ?? 0;
      days.set(day, d);
    }
  }
  return days;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith(".jsonl") ? [path] : [];
  });
}

describe.skipIf(ccusage === undefined)("agentstream usage beside ccusage", () => {
  it("equal tokens and cost, day by day, where each response has one line with its requestId", async () => {
    const tree = tempTree();
    const models = ["claude-sonnet-4-20250514", "claude-opus-4-1-20250805", "claude-3-5-haiku-20241022"];
    for (let s = 0; s < 6; s++) {
      const lines = Array.from({ length: 40 }, (_, i) =>
        claudeLine({
          session: `s${s}`,
          message: `msg_${s}_${i}`,
          request: `req_${s}_${i}`,
          model: models[(s + i) % models.length] as string,
          time: new Date(Date.UTC(2026, 2, 1 + s, 8 + (i % 12), i)).toISOString(),
          input: 3 + i,
          output: 100 * i + s,
          cacheRead: 10_000 + 500 * i,
          cacheWrite: 200 * (i % 5),
        }),
      );
      tree.write(`projects/-work-p${s % 2}/s${s}.jsonl`, lines);
    }
    const [a, b] = [theirs(tree.root), await ours(tree.root)];
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [day, them] of a) {
      const us = b.get(day) as DayTotals;
      expect({ ...us, cost: 0 }, day).toEqual({
        inputTokens: them.inputTokens,
        outputTokens: them.outputTokens,
        cacheReadTokens: them.cacheReadTokens,
        cacheCreationTokens: them.cacheCreationTokens,
        cost: 0,
      });
      expect(us.cost, day).toBeCloseTo(them.cost, 6);
    }
  });

  it.skipIf(!hasShared)(
    "on the real captures: input and cache figures equal; output and the requestId-less day differ as docs/usage.md explains",
    async () => {
      const tree = tempTree();
      const source = sharedPath("fixtures", "claude-session");
      for (const file of filesUnder(source)) {
        const target = join(tree.root, "projects", "captures", relative(source, file));
        mkdirSync(join(target, ".."), { recursive: true });
        copyFileSync(file, target);
      }
      const [a, b] = [theirs(tree.root), await ours(tree.root)];
      const rule = firstLineRule(filesUnder(join(tree.root, "projects")));
      for (const [day, them] of a) {
        // ccusage is exactly its rule, written out above.
        expect(them, day).toMatchObject(rule.get(day) ?? {});
      }
      // Days whose lines carry requestId: the same responses, so the same input and cache figures...
      for (const day of ["2025-07-20", "2025-08-11", "2025-09-03", "2026-07-10"]) {
        const [them, us] = [a.get(day), b.get(day)];
        expect(us?.inputTokens).toBe(them?.inputTokens);
        expect(us?.cacheReadTokens).toBe(them?.cacheReadTokens);
        expect(us?.cacheCreationTokens).toBe(them?.cacheCreationTokens);
      }
      // ...but ccusage keeps each response's first line, whose output count is not final yet (ccusage#797, #888).
      expect([a.get("2025-08-11")?.outputTokens, b.get("2025-08-11")?.outputTokens]).toEqual([996, 1163]);
      expect([a.get("2025-09-03")?.outputTokens, b.get("2025-09-03")?.outputTokens]).toEqual([49_780, 51_933]);
      // A single-line response is the same to both, cost included (Opus 4 priced alike).
      expect(b.get("2025-07-20")?.cost).toBeCloseTo(a.get("2025-07-20")?.cost ?? Number.NaN, 6);
      // requestId removed from the 2.1.223 transcripts: ccusage counts every line (ccusage#976), we key on the message id.
      expect(a.get("2026-08-06")).toMatchObject({ inputTokens: 43, outputTokens: 26_876 });
      expect(b.get("2026-08-06")).toMatchObject({ inputTokens: 12, outputTokens: 13_328 });
      // claude-sonnet-5 is not in either price table: ccusage prices it at $0, we list it as unpriced.
      expect(a.get("2026-07-10")?.cost).toBe(0);
      const io = fakeIo();
      await run(["usage", join(tree.root, "projects"), "--tz", "UTC", "--no-cache"], io);
      expect(io.out()).toContain("no price for: claude-sonnet-5");
      // An API-error line (429) with zero usage makes a ccusage row of zeros; it is no request to us.
      expect(a.has("2026-07-21") && !b.has("2026-07-21")).toBe(true);
    },
  );
});
