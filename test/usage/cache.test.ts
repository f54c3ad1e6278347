/** The scan cache: unchanged files are not read again; an appended file is read from where the last read stopped. */
import { appendFileSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { groupUsage } from "../../src/usage/aggregate.ts";
import { loadCache } from "../../src/usage/cache.ts";
import { collectUsage } from "../../src/usage/collect.ts";
import { createPricer } from "../../src/usage/prices.ts";
import { scanFile } from "../../src/usage/scan-file.ts";
import type { RecordColumns } from "../../src/usage/types.ts";
import { claudeLine, codexMeta, codexTokenCount, tempTree } from "./trees.ts";

const outputs = async (root: string, cacheHome: string, cache = true) => {
  const collected = await collectUsage({ paths: [root], env: { XDG_CACHE_HOME: cacheHome }, cache });
  return {
    read: collected.read,
    outputs: collected.ledger.charges.map((c) => c.tokens.output).sort((a, b) => a - b),
  };
};

describe("usage cache", () => {
  it("a second run over unchanged files reads none of them", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    tree.write("logs/projects/p/a.jsonl", [claudeLine({ message: "m1", request: "r1", output: 11 })]);
    tree.write("logs/projects/q/b.jsonl", [claudeLine({ message: "m2", request: "r2", output: 22, session: "s-2" })]);
    const logs = join(tree.root, "logs");
    expect(await outputs(logs, cacheHome)).toEqual({ read: 2, outputs: [11, 22] });
    expect(await outputs(logs, cacheHome)).toEqual({ read: 0, outputs: [11, 22] });
  });

  it("tells the caller how the changed files will be scanned, before they are: the bytes to read, on this thread", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const file = tree.write("logs/projects/p/a.jsonl", [claudeLine({ message: "m1", request: "r1", output: 11 })]);
    const logs = join(tree.root, "logs");
    const plans: unknown[] = [];
    const collect = () =>
      collectUsage({ paths: [logs], env: { XDG_CACHE_HOME: cacheHome }, cache: true, onScan: (plan) => plans.push(plan) });
    await collect();
    const line = `${JSON.stringify(claudeLine({ message: "m2", request: "r2", output: 33 }))}\n`;
    appendFileSync(file, line);
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    await collect();
    // The first run reads the whole file, the second what was appended; both on this thread (small, and no
    // compiled worker under the sources).
    expect(plans).toEqual([
      { bytes: readFileSync(file).length - Buffer.byteLength(line), workers: 0 },
      { bytes: Buffer.byteLength(line), workers: 0 },
    ]);
  });

  it("an appended file is read from its last offset: the bytes before it are not read again", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const file = tree.write("logs/projects/p/a.jsonl", [claudeLine({ message: "m1", request: "r1", output: 11 })]);
    const logs = join(tree.root, "logs");
    await outputs(logs, cacheHome);
    // Change the first record in place (same length) and append a record: only the appended one is read.
    writeFileSync(file, readFileSync(file, "utf8").replace('"output_tokens":11', '"output_tokens":99'));
    appendFileSync(file, `${JSON.stringify(claudeLine({ message: "m2", request: "r2", output: 33 }))}\n`);
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(await outputs(logs, cacheHome)).toEqual({ read: 1, outputs: [11, 33] });
    // Without the cache the whole file is read, edited record included.
    expect(await outputs(logs, cacheHome, false)).toEqual({ read: 1, outputs: [33, 99] });
  });

  it("a Codex rollout read on from its offset keeps its running total: the appended request is its difference", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const file = tree.write("logs/rollout-2026-03-01T10-00-00-t.jsonl", [
      ...codexMeta("t", "2026-03-01T10:00:00Z"),
      codexTokenCount("2026-03-01T10:00:05Z", [1000, 800, 20], [1000, 800, 20]),
    ]);
    const logs = join(tree.root, "logs");
    await outputs(logs, cacheHome);
    appendFileSync(file, `${JSON.stringify(codexTokenCount("2026-03-01T10:01:00Z", [2500, 1800, 50], [1500, 1000, 30]))}\n`);
    const collected = await collectUsage({ paths: [logs], env: { XDG_CACHE_HOME: cacheHome }, cache: true });
    expect(collected.read).toBe(1);
    const charges = collected.ledger.charges.map((c) => [c.tokens.input, c.tokens.cacheRead, c.tokens.output, c.model]);
    expect(charges).toEqual([
      [200, 800, 20, "gpt-5-codex"],
      [500, 1000, 30, "gpt-5-codex"],
    ]);
  });

  it("a file that shrank (rewritten) is read whole again", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const file = tree.write("logs/projects/p/a.jsonl", [
      claudeLine({ message: "m1", request: "r1", output: 11 }),
      claudeLine({ message: "m2", request: "r2", output: 12 }),
    ]);
    const logs = join(tree.root, "logs");
    await outputs(logs, cacheHome);
    writeFileSync(file, `${JSON.stringify(claudeLine({ message: "m3", request: "r3", output: 7 }))}\n`);
    expect(await outputs(logs, cacheHome)).toEqual({ read: 1, outputs: [7] });
  });

  it("a file rewritten longer is read whole again, not read on from where the last read stopped", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const file = tree.write("logs/projects/p/a.jsonl", [claudeLine({ message: "m1", request: "r1", output: 1 })]);
    const logs = join(tree.root, "logs");
    await outputs(logs, cacheHome);
    // The same request with a larger output: the file is longer, but its first bytes are not the ones read.
    const lines = [claudeLine({ message: "m1", request: "r1", output: 10 }), claudeLine({ message: "m2", request: "r2", output: 5 })];
    writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    expect(await outputs(logs, cacheHome)).toEqual({ read: 1, outputs: [5, 10] });
    expect(await outputs(logs, cacheHome, false)).toEqual({ read: 1, outputs: [5, 10] });
  });
});

describe("usage cache housekeeping", () => {
  it("forgets the files that left a folder it walked, and keeps the others", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const gone = tree.write("logs/projects/p/gone.jsonl", [claudeLine({ message: "m1", request: "r1", output: 11 })]);
    tree.write("logs/projects/p/kept.jsonl", [claudeLine({ message: "m2", request: "r2", output: 22, session: "s-2" })]);
    const other = tree.write("other/projects/q/x.jsonl", [claudeLine({ message: "m3", request: "r3", output: 33, session: "s-3" })]);
    await outputs(join(tree.root, "logs"), cacheHome);
    await outputs(other, cacheHome);
    const { rmSync } = await import("node:fs");
    rmSync(gone);
    await outputs(join(tree.root, "logs"), cacheHome);
    const cache = loadCache(join(cacheHome, "agentstream"));
    const stored = { files: [...cache.scans.values()] };
    expect(stored.files.map((f) => f.path.replace(tree.root, "")).sort()).toEqual([
      "/logs/projects/p/kept.jsonl",
      "/other/projects/q/x.jsonl",
    ]);
  });
});

describe("usage cache columns read as they are used", () => {
  const columnsOf = (c: RecordColumns) => [c.keyHi, c.keyLo, c.time, c.cost, c.tokens, c.model, c.flags].map((column) => [...column]);

  it("gives each file's columns as a scan of the file does, read file by file or, past a share of the frame, whole", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const paths = Array.from({ length: 24 }, (_, f) =>
      tree.write(
        `logs/projects/p${f}/s.jsonl`,
        Array.from({ length: 1 + (f % 5) }, (_, i) =>
          claudeLine({ message: `m${f}-${i}`, request: `r${f}-${i}`, output: 10 * f + i, session: `s-${f}`, input: i + 1 }),
        ),
      ),
    );
    await outputs(join(tree.root, "logs"), cacheHome);
    const dir = join(cacheHome, "agentstream");
    for (const order of [paths, [...paths].reverse(), [paths[7] as string]]) {
      const cache = loadCache(dir);
      for (const path of order) {
        const stored = cache.scans.get(path)?.records;
        const scanned = scanFile({ path, agent: "claude" })?.records;
        expect(stored && columnsOf(stored)).toEqual(scanned && columnsOf(scanned));
      }
    }
  });
});

describe("usage cache against a cold run", () => {
  /**
   * The report `usage --by day --by model --breakdown` and `sessions` are made of, from the cached and from a cold
   * run.
   */
  const report = async (root: string, cacheHome: string, cache: boolean) => {
    const pricer = createPricer();
    const { ledger } = await collectUsage({
      paths: [root],
      env: { XDG_CACHE_HOME: cacheHome },
      cache,
      condensed: { pricer, timeZone: "Asia/Kolkata" },
    });
    const options = { by: ["day", "model"] as const, timeZone: "Asia/Kolkata", breakdown: true, pricer, ledger };
    const text = JSON.stringify(
      {
        usage: groupUsage(ledger.charges, options),
        sessions: [...ledger.sessions.values()].map((s) => ({ ...s, files: [...s.files].sort() })),
        duplicates: ledger.duplicates,
      },
      (_key, value: unknown) => (value instanceof Set ? [...value].sort() : value),
    );
    return text;
  };
  const line = (n: number, extra: Partial<Parameters<typeof claudeLine>[0]> = {}) =>
    claudeLine({
      message: `m${n}`,
      request: `r${n}`,
      output: 7 * n + 3,
      input: 13 * n,
      time: `2026-03-0${1 + (n % 3)}T1${n % 10}:0${n % 6}:00.000Z`,
      ...extra,
    });
  const append = (file: string, lines: object[]) => appendFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
  /** Replaces a file's content, with an mtime no earlier run saw. */
  const replace = (file: string, lines: object[]) => {
    writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    const later = new Date(Date.now() + 10_000 + Math.floor(Math.random() * 1e6));
    utimesSync(file, later, later);
  };

  /** Each change, then the cached report against a cold one: equal (twice: the second time from the cache just kept). */
  const check = async (logs: string, cacheHome: string, steps: [string, () => void][]) => {
    await report(logs, cacheHome, true);
    for (const [about, change] of steps) {
      change();
      const cached = await report(logs, cacheHome, true);
      const cold = await report(logs, cacheHome, false);
      expect(cached, about).toBe(cold);
      expect(await report(logs, cacheHome, true), about).toBe(cold);
    }
  };

  it("gives the report of a cold run, to the last digit, after files are appended, added, removed and replaced", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const logs = join(tree.root, "logs");
    const a = tree.write("logs/projects/p/a.jsonl", [line(1), line(2), line(3, { model: "claude-opus-4-20250514" })]);
    const b = tree.write("logs/projects/p/b.jsonl", [line(4, { session: "s-2" }), line(5, { session: "s-2" })]);
    const c = tree.write("logs/projects/q/c.jsonl", [line(6, { session: "s-3", model: "no-such-model" }), line(7, { session: "s-3" })]);
    let d = "";
    await check(logs, cacheHome, [
      ["nothing changed", () => {}],
      ["a response appended", () => append(a, [line(8)])],
      // The last line of a response wins: its larger output replaces the first line's, in place.
      ["an appended line repeating a response of the file", () => append(b, [line(4, { session: "s-2", output: 900 })])],
      [
        "a new file: a resumed copy repeating a request with a larger output",
        () => {
          d = tree.write("logs/projects/p/d.jsonl", [
            line(2, { session: "s-4", output: 500 }),
            line(9, { session: "s-4", time: "2026-03-04T23:50:00.000Z" }),
          ]);
        },
      ],
      ["a response appended to a file that shares a request", () => append(a, [line(12)])],
      ["the copy appended to, repeating the shared request again", () => append(d, [line(2, { session: "s-4", output: 600 })])],
      ["a new file of its own", () => void tree.write("logs/projects/r/e.jsonl", [line(13, { session: "s-5" })])],
      ["a file of its own removed", () => rmSync(c)],
      ["a file of its own replaced by a shorter one", () => replace(b, [line(5, { session: "s-2" })])],
      ["a file that shared a request replaced by another of other requests", () => replace(a, [line(10), line(11, { sidechain: true })])],
      [
        "a new file repeating a response of the copy",
        () => void tree.write("logs/projects/p/f.jsonl", [line(9, { session: "s-6", time: "2026-03-04T23:50:00.000Z" })]),
      ],
      ["a file that shared a request removed", () => rmSync(join(logs, "projects/p/f.jsonl"))],
      ["then the copy, now of its own, removed", () => rmSync(d)],
    ]);
  });

  it("gives a cold run's report when folders named overlap (a file found twice)", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const a = tree.write("logs/projects/p/a.jsonl", [line(1), line(2)]);
    tree.write("logs/projects/q/b.jsonl", [line(3, { session: "s-2" })]);
    const paths = [join(tree.root, "logs"), join(tree.root, "logs/projects/p")];
    const run = async (cache: boolean) => {
      const pricer = createPricer();
      const { ledger } = await collectUsage({
        paths,
        env: { XDG_CACHE_HOME: cacheHome },
        cache,
        condensed: { pricer, timeZone: "UTC" },
      });
      const report = groupUsage(ledger.charges, { by: ["day"], timeZone: "UTC", breakdown: false, pricer, ledger });
      return JSON.stringify(report, (_key, value: unknown) => (value instanceof Set ? [...value].sort() : value));
    };
    await run(true);
    append(a, [line(4)]);
    const cached = await run(true);
    expect(cached).toBe(await run(false));
  });

  it("says so when charges condensed by day in one zone are grouped in another", async () => {
    const tree = tempTree();
    tree.write("logs/projects/p/a.jsonl", [line(1)]);
    const pricer = createPricer();
    const { ledger } = await collectUsage({ paths: [tree.root], env: {}, cache: false, condensed: { pricer, timeZone: "Asia/Kolkata" } });
    expect(() => groupUsage(ledger.charges, { by: ["day"], timeZone: "UTC", breakdown: false, pricer, ledger })).toThrow(
      /condensed by day in Asia\/Kolkata/,
    );
  });

  it("gives a cold run's report when a changed file holds Codex running totals", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const logs = join(tree.root, "logs");
    tree.write("logs/projects/p/a.jsonl", [line(1), line(2)]);
    const rollout = tree.write("logs/sessions/2026/03/02/rollout-2026-03-02T08-00-00-t.jsonl", [
      ...codexMeta("t", "2026-03-02T08:00:00Z"),
      codexTokenCount("2026-03-02T08:00:05Z", [1000, 800, 20], [1000, 800, 20]),
    ]);
    await check(logs, cacheHome, [
      ["a Codex total appended", () => append(rollout, [codexTokenCount("2026-03-02T08:01:00Z", [3000, 2400, 70], [2000, 1600, 50])])],
      ["a Claude response appended beside it", () => append(join(logs, "projects/p/a.jsonl"), [line(3)])],
    ]);
  });
});
