/** The scan cache: unchanged files are not read again; an appended file is read from where the last read stopped. */
import { appendFileSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { groupUsage } from "../../src/usage/aggregate.ts";
import { loadCache } from "../../src/usage/cache.ts";
import { chargeArray } from "../../src/usage/charge-list.ts";
import { collectUsage } from "../../src/usage/collect.ts";
import { createPricer } from "../../src/usage/prices.ts";
import { scanFile } from "../../src/usage/scan-file.ts";
import type { RecordColumns } from "../../src/usage/types.ts";
import { claudeLine, codexMeta, codexTokenCount, tempTree } from "./trees.ts";

const outputs = async (root: string, cacheHome: string, cache = true) => {
  const collected = await collectUsage({ paths: [root], env: { XDG_CACHE_HOME: cacheHome }, cache });
  return {
    read: collected.read,
    outputs: chargeArray(collected.ledger.charges)
      .map((c) => c.tokens.output)
      .sort((a, b) => a - b),
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
    const charges = chargeArray(collected.ledger.charges).map((c) => [c.tokens.input, c.tokens.cacheRead, c.tokens.output, c.model]);
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
    cache.close();
    expect(stored.files.map((f) => f.path.replace(tree.root, "")).sort()).toEqual([
      "/logs/projects/p/kept.jsonl",
      "/other/projects/q/x.jsonl",
    ]);
  });
});

describe("usage cache journal", () => {
  const frames = (cacheHome: string): number => {
    const bytes = readFileSync(join(cacheHome, "agentstream", "usage-v8.bin"));
    let count = 0;
    for (let at = bytes.indexOf("AGSUSAGE"); at !== -1; at = bytes.indexOf("AGSUSAGE", at + 1)) count++;
    return count;
  };

  it("a run that read a few files appends them as a frame; a frame cut short is ignored; the cache is compacted once grown", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const logs = join(tree.root, "logs");
    const big = Array.from({ length: 200 }, (_, i) => claudeLine({ message: `m${i}`, request: `r${i}`, output: i + 1 }));
    tree.write("logs/projects/p/big.jsonl", big);
    const small = tree.write("logs/projects/q/small.jsonl", [claudeLine({ message: "s0", request: "t0", output: 7, session: "s-2" })]);
    await outputs(logs, cacheHome);
    expect(frames(cacheHome)).toBe(1);
    appendFileSync(small, `${JSON.stringify(claudeLine({ message: "s1", request: "t1", output: 8, session: "s-2" }))}\n`);
    expect((await outputs(logs, cacheHome)).read).toBe(1);
    expect(frames(cacheHome)).toBe(2);
    const dir = join(cacheHome, "agentstream");
    const journaled = loadCache(dir);
    expect(journaled.scans.get(small)?.records.length).toBe(2);
    journaled.close();
    // A crash while appending: the torn frame is dropped, the frame before it stands.
    const file = join(dir, "usage-v8.bin");
    const whole = readFileSync(file);
    writeFileSync(file, whole.subarray(0, whole.length - 8));
    const torn = loadCache(dir);
    expect(torn.scans.get(small)?.records.length).toBe(1);
    torn.close();
    writeFileSync(file, whole);
    // Appends until the frames outgrow a quarter of the first: then one frame again, with everything.
    for (let i = 2; frames(cacheHome) > 1 || i === 2; i++) {
      appendFileSync(small, `${JSON.stringify(claudeLine({ message: `s${i}`, request: `t${i}`, output: 8, session: "s-2" }))}\n`);
      await outputs(logs, cacheHome);
      expect(i).toBeLessThan(200);
    }
    const compacted = loadCache(dir);
    expect(compacted.scans.size).toBe(2);
    expect((compacted.scans.get(small)?.records.length ?? 0) > 2).toBe(true);
    compacted.close();
    const run = await outputs(logs, cacheHome, false);
    expect((await outputs(logs, cacheHome)).outputs).toEqual(run.outputs);
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
      cache.close();
    }
  });

  it("a column first used after the cache was closed is an error, not a silent zero", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const path = tree.write("logs/projects/p/a.jsonl", [claudeLine({ message: "m1", request: "r1", output: 11 })]);
    await outputs(join(tree.root, "logs"), cacheHome);
    const cache = loadCache(join(cacheHome, "agentstream"));
    const records = cache.scans.get(path)?.records;
    expect(records?.keyHi.length).toBe(1);
    cache.close();
    expect(() => records?.tokens).toThrow(/after the cache was closed/);
  });
});

describe("usage cache against a cold run", () => {
  /**
   * The report `usage --by day --by model --breakdown` and `sessions` are made of, from the cached and from a cold
   * run, and how the cached one was made (the last result kept, updated from the files a change reaches, or merged).
   */
  const report = async (root: string, cacheHome: string, cache: boolean) => {
    const pricer = createPricer();
    const { ledger, made } = await collectUsage({
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
    return { text, made };
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

  /** Each change, then the cached report against a cold one: equal, and made as said (twice: the second time from the result just kept). */
  const check = async (logs: string, cacheHome: string, steps: [string, "kept" | "updated" | "merged", () => void][]) => {
    await report(logs, cacheHome, true);
    for (const [about, made, change] of steps) {
      change();
      const cached = await report(logs, cacheHome, true);
      const cold = await report(logs, cacheHome, false);
      expect(cached.text, about).toBe(cold.text);
      expect(cached.made, about).toBe(made);
      expect(await report(logs, cacheHome, true), about).toEqual({ text: cold.text, made: "kept" });
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
      ["nothing changed", "kept", () => {}],
      ["a response appended", "updated", () => append(a, [line(8)])],
      // The last line of a response wins: its larger output replaces the first line's, in place.
      ["an appended line repeating a response of the file", "updated", () => append(b, [line(4, { session: "s-2", output: 900 })])],
      [
        "a new file: a resumed copy repeating a request with a larger output",
        "updated",
        () => {
          d = tree.write("logs/projects/p/d.jsonl", [
            line(2, { session: "s-4", output: 500 }),
            line(9, { session: "s-4", time: "2026-03-04T23:50:00.000Z" }),
          ]);
        },
      ],
      ["a response appended to a file that shares a request", "updated", () => append(a, [line(12)])],
      ["the copy appended to, repeating the shared request again", "updated", () => append(d, [line(2, { session: "s-4", output: 600 })])],
      ["a new file of its own", "updated", () => void tree.write("logs/projects/r/e.jsonl", [line(13, { session: "s-5" })])],
      ["a file of its own removed", "updated", () => rmSync(c)],
      ["a file of its own replaced by a shorter one", "updated", () => replace(b, [line(5, { session: "s-2" })])],
      [
        "a file that shared a request replaced by another of other requests",
        "merged",
        () => replace(a, [line(10), line(11, { sidechain: true })]),
      ],
      [
        "a new file repeating a response of the copy",
        "updated",
        () => void tree.write("logs/projects/p/f.jsonl", [line(9, { session: "s-6", time: "2026-03-04T23:50:00.000Z" })]),
      ],
      ["a file that shared a request removed", "merged", () => rmSync(join(logs, "projects/p/f.jsonl"))],
      ["then the copy, now of its own, removed", "updated", () => rmSync(d)],
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
      const { ledger, made } = await collectUsage({
        paths,
        env: { XDG_CACHE_HOME: cacheHome },
        cache,
        condensed: { pricer, timeZone: "UTC" },
      });
      const report = groupUsage(ledger.charges, { by: ["day"], timeZone: "UTC", breakdown: false, pricer, ledger });
      return { text: JSON.stringify(report, (_key, value: unknown) => (value instanceof Set ? [...value].sort() : value)), made };
    };
    await run(true);
    append(a, [line(4)]);
    const cached = await run(true);
    expect(cached.text).toBe((await run(false)).text);
    expect(cached.made).toBe("merged");
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

  it("merges everything again when a changed file holds Codex running totals", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const logs = join(tree.root, "logs");
    tree.write("logs/projects/p/a.jsonl", [line(1), line(2)]);
    const rollout = tree.write("logs/sessions/2026/03/02/rollout-2026-03-02T08-00-00-t.jsonl", [
      ...codexMeta("t", "2026-03-02T08:00:00Z"),
      codexTokenCount("2026-03-02T08:00:05Z", [1000, 800, 20], [1000, 800, 20]),
    ]);
    await check(logs, cacheHome, [
      [
        "a Codex total appended",
        "merged",
        () => append(rollout, [codexTokenCount("2026-03-02T08:01:00Z", [3000, 2400, 70], [2000, 1600, 50])]),
      ],
      ["a Claude response appended beside it", "updated", () => append(join(logs, "projects/p/a.jsonl"), [line(3)])],
    ]);
  });
});
