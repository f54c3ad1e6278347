/** The scan cache: unchanged files are not read again; an appended file is read from where the last read stopped. */
import { appendFileSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCache } from "../../src/usage/cache.ts";
import { collectUsage } from "../../src/usage/collect.ts";
import { claudeLine, codexMeta, codexTokenCount, tempTree } from "./trees.ts";

const outputs = async (root: string, cacheHome: string, cache = true) => {
  const collected = await collectUsage({ paths: [root], env: { XDG_CACHE_HOME: cacheHome }, cache });
  return { read: collected.read, outputs: collected.ledger.charges.map((c) => c.tokens.output).sort((a, b) => a - b) };
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
    const stored = { files: [...loadCache(join(cacheHome, "agentstream")).values()] };
    expect(stored.files.map((f) => f.path.replace(tree.root, "")).sort()).toEqual([
      "/logs/projects/p/kept.jsonl",
      "/other/projects/q/x.jsonl",
    ]);
  });
});
