/**
 * The scan cache's layout: paths as one string table, each file's other fields as an entry parsed when first
 * used, and written back as stored by a compaction.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type LoadedCache, loadCache, saveCache } from "../../src/usage/cache.ts";
import { collectUsage } from "../../src/usage/collect.ts";
import { compactColumns } from "../../src/usage/columns.ts";
import { scanFile } from "../../src/usage/scan-file.ts";
import { plainScan } from "../../src/usage/stored-scan.ts";
import type { FileScan } from "../../src/usage/types.ts";
import { tempDir } from "../helpers/temp.ts";
import { claudeLine, codexMeta, codexTokenCount, tempTree } from "./trees.ts";

/** Every field of a scan, read one by one (a loaded scan's fields are getters, which `toEqual` does not see). */
const fieldsOf = (scan: FileScan | undefined) => {
  if (scan === undefined) return undefined;
  const { path, agent, size, mtimeMs, offset, seam, badLines, facts, state, records: r } = scan;
  const columns = [r.keyHi, r.keyLo, r.time, r.cost, r.tokens, r.model, r.flags].map((column) => [...column]);
  return {
    path,
    agent,
    size,
    mtimeMs,
    offset,
    seam,
    badLines,
    facts,
    state,
    length: r.length,
    models: r.models,
    threads: r.threads,
    columns,
  };
};

const fieldsOfAll = (cache: LoadedCache) => new Map([...cache.scans].map(([path, scan]) => [path, fieldsOf(scan)]));

/** Claude and Codex scans of a fresh tree, and one with no seam and bad lines (as a Gemini JSON chat's). */
const sampleScans = (): FileScan[] => {
  const tree = tempTree();
  const claude = tree.write("projects/p/a.jsonl", [
    claudeLine({ message: "m1", request: "r1", output: 11, cwd: "/work/dé\nmo" }),
    claudeLine({ message: "m2", request: "r2", output: 12, model: "claude-opus-4-20250514" }),
  ]);
  const codex = tree.write("sessions/rollout-2026-03-01T10-00-00-t.jsonl", [
    ...codexMeta("t", "2026-03-01T10:00:00Z"),
    codexTokenCount("2026-03-01T10:00:05Z", [1000, 800, 20], [1000, 800, 20]),
    codexTokenCount("2026-03-01T10:01:00Z", [2500, 1800, 50], [1500, 1000, 30]),
  ]);
  const big = tree.write(
    "projects/q/big.jsonl",
    Array.from({ length: 200 }, (_, i) => claudeLine({ message: `b${i}`, request: `q${i}`, output: i, session: "s-big" })),
  );
  const scans = [
    scanFile({ path: claude, agent: "claude" }),
    scanFile({ path: codex, agent: "codex" }),
    scanFile({ path: big, agent: "claude" }),
  ].filter((scan): scan is FileScan => scan !== undefined);
  const [first] = scans;
  if (first === undefined) throw new Error("no scan");
  return [
    ...scans,
    { ...first, path: `${first.path}.copy`, seam: undefined, badLines: 3 },
    // Columns in arrays of their own (as a worker gets an earlier scan's): written as a block of their own.
    { ...first, path: `${first.path}.compact`, records: compactColumns(first.records) },
  ];
};

const framesIn = (file: string): number => {
  const bytes = readFileSync(file);
  let count = 0;
  for (let at = bytes.indexOf("AGSUSAGE"); at !== -1; at = bytes.indexOf("AGSUSAGE", at + 1)) count++;
  return count;
};

describe("usage cache paths", () => {
  it("gives back every path as written: non-ASCII, astral, a newline, a carriage return", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const names = ["plain", "é-日本", "emoji-😀", "new\nline", "tab\tand space", "ünï\r\ncödé"];
    const paths = names.map((name, i) =>
      tree.write(`logs/projects/${name}/${name}.jsonl`, [claudeLine({ message: `m${i}`, request: `r${i}`, session: `s-${i}` })]),
    );
    const run = () => collectUsage({ paths: [join(tree.root, "logs")], env: { XDG_CACHE_HOME: cacheHome }, cache: true });
    expect((await run()).read).toBe(names.length);
    const cache = loadCache(join(cacheHome, "agentstream"));
    expect([...cache.scans.keys()].sort()).toEqual([...paths].sort());
    for (const [path, scan] of cache.scans) expect(scan.path).toBe(path);
    cache.close();
    // The paths found on disk match the stored ones: nothing is read again.
    expect((await run()).read).toBe(0);
  });
});

describe("usage cache entries", () => {
  it("a loaded scan's every field is what was stored, its entry read and parsed when first used, and kept", () => {
    const scans = sampleScans();
    const dir = tempDir("usage-cache");
    saveCache(dir, scans);
    const cache = loadCache(dir);
    const loaded = scans.map((scan) => fieldsOf(cache.scans.get(scan.path)));
    const facts = cache.scans.get(scans[1]?.path ?? "")?.facts;
    cache.close();
    expect(loaded).toEqual(scans.map(fieldsOf));
    expect(loaded[1]?.threads?.length).toBe(2);
    expect(loaded[3]?.seam).toBeUndefined();
    expect(loaded[3]?.badLines).toBe(3);
    // An entry read before the cache is closed is kept, parsed once; a column not read cannot be read after.
    const again = loadCache(dir);
    const read = again.scans.get(scans[1]?.path ?? "");
    const readFacts = read?.facts;
    again.close();
    expect(read?.facts).toBe(readFacts);
    expect(read?.facts).toEqual(facts);
    expect(read?.state).toEqual(scans[1]?.state);
    expect(() => read?.records.time).toThrow(/after the cache was closed/);
  });

  it("a frame of many files gives one file's entry, read alone, as it was stored", () => {
    const [claude] = sampleScans();
    if (claude === undefined) throw new Error("no scan");
    // Forty files: one entry is far less than the share of the entries past which they are read whole.
    const scans = Array.from({ length: 40 }, (_, i) => ({ ...plainScan(claude), path: `${claude.path}.${i}`, badLines: i }));
    const dir = tempDir("usage-cache");
    saveCache(dir, scans);
    const cache = loadCache(dir);
    const [one, other] = [cache.scans.get(scans[17]?.path ?? ""), cache.scans.get(scans[33]?.path ?? "")];
    expect([one?.badLines, other?.badLines]).toEqual([17, 33]);
    expect(fieldsOf(one)).toEqual(fieldsOf(scans[17]));
    cache.close();
  });

  it("a compaction of scans loaded from several frames, none of their entries parsed, writes back every field exactly", () => {
    const scans = sampleScans();
    const dir = tempDir("usage-cache");
    const [a, b, big, c] = scans;
    if (a === undefined || b === undefined || big === undefined || c === undefined) throw new Error("no scans");
    saveCache(dir, [big, a, b]);
    // Two more frames (a journal): c added and a forgotten, then a again with other facts.
    saveCache(dir, [], { changed: [c], forgotten: [a.path] });
    saveCache(dir, [], { changed: [{ ...a, offset: a.offset - 1, facts: { ...a.facts, project: "elsewhere" } }], forgotten: [] });
    expect(framesIn(join(dir, "usage-v8.bin"))).toBe(3);
    const journal = loadCache(dir);
    const compacted = tempDir("usage-cache");
    saveCache(compacted, journal.scans.values());
    journal.close();
    const original = loadCache(dir);
    const rewritten = loadCache(compacted);
    expect(fieldsOfAll(rewritten)).toEqual(fieldsOfAll(original));
    expect(rewritten.scans.get(a.path)?.facts.project).toBe("elsewhere");
    expect([...rewritten.scans.keys()]).toEqual([big.path, b.path, c.path, a.path]);
    expect(framesIn(join(compacted, "usage-v8.bin"))).toBe(1);
    original.close();
    rewritten.close();
  });
});

describe("usage cache scans posted to a worker", () => {
  it("a loaded scan copied as a plain object with compacted columns keeps every field through a structured clone", () => {
    const scans = sampleScans();
    const dir = tempDir("usage-cache");
    saveCache(dir, scans);
    const cache = loadCache(dir);
    for (const scan of cache.scans.values()) {
      // What a worker would get from the scan as it is: the getters' fields are gone.
      expect((structuredClone(scan) as Partial<FileScan>).facts).toBeUndefined();
      const posted = structuredClone(plainScan(scan, compactColumns(scan.records)));
      expect(fieldsOf(posted)).toEqual(fieldsOf(scan));
    }
    cache.close();
  });
});

describe("usage cache of an older version", () => {
  it("a cache of an older version is ignored: every file is read again, and the old file removed", async () => {
    const tree = tempTree();
    const cacheHome = join(tree.root, "cache");
    const dir = join(cacheHome, "agentstream");
    tree.write("logs/projects/p/a.jsonl", [claudeLine({ message: "m1", request: "r1" })]);
    tree.write("logs/projects/q/b.jsonl", [claudeLine({ message: "m2", request: "r2", session: "s-2" })]);
    const run = () => collectUsage({ paths: [join(tree.root, "logs")], env: { XDG_CACHE_HOME: cacheHome }, cache: true });
    expect((await run()).read).toBe(2);
    // The same bytes under the old name, and a frame saying it is of version 6 under the new one.
    const current = join(dir, "usage-v8.bin");
    const bytes = readFileSync(current);
    renameSync(current, join(dir, "usage-v6.bin"));
    expect((await run()).read).toBe(2);
    expect(() => readFileSync(join(dir, "usage-v6.bin"))).toThrow(/ENOENT/);
    const text = bytes.toString("latin1");
    writeFileSync(current, Buffer.from(text.replace('{"version":8,', '{"version":6,'), "latin1"));
    const old = loadCache(dir);
    expect(old.scans.size).toBe(0);
    old.close();
    expect((await run()).read).toBe(2);
  });
});
