/** The merge across files: one request per key pair, the copy with the larger output, the first file's session. */
import { describe, expect, it } from "vitest";
import { toColumns } from "../../src/usage/columns.ts";
import { buildLedger, mergeScans } from "../../src/usage/ledger.ts";
import { freshFacts } from "../../src/usage/scanner.ts";
import { type FileScan, type UsageRecord, zeroTokens } from "../../src/usage/types.ts";

const record = (hi: number, lo: number, output: number, time = 1_000): UsageRecord => ({
  key: { id: `${hi}.${lo}`, hi, lo },
  time,
  model: "claude-sonnet-4-20250514",
  tokens: { ...zeroTokens(), input: 1, output },
  costUsd: null,
  sidechain: false,
});

const scan = (path: string, session: string, start: number, records: UsageRecord[]): FileScan => ({
  path,
  agent: "claude",
  size: 1,
  mtimeMs: 1,
  offset: 1,
  badLines: 0,
  facts: { ...freshFacts("claude"), sessionId: session, start, end: start + 10 },
  records: toColumns(records),
  state: {},
});

describe("merging scans", () => {
  it("merges files in order of their start, then end, then path, whatever order they come in", () => {
    const a = scan("a.jsonl", "s-a", 1, [record(1, 1, 10)]);
    const b = scan("b.jsonl", "s-b", 2, [record(2, 2, 10)]);
    const c = scan("c.jsonl", "s-c", 3, [record(1, 1, 10), record(2, 2, 10)]);
    const merged = mergeScans([c, b, a]);
    expect(merged.scans.map((s) => s.path)).toEqual(["a.jsonl", "b.jsonl", "c.jsonl"]);
    expect(merged.duplicates).toBe(2);
  });

  it("keys that share one hash (or the table slot) are two requests; only both hashes equal make one", () => {
    // Same low hash, other high hash: a collision of the probed hash is told apart by the other one.
    const a = scan("a.jsonl", "s-a", 1, [record(1, 42, 10), record(2, 42, 20)]);
    // A low hash equal to another's modulo the table size lands on the same slot first.
    const b = scan("b.jsonl", "s-b", 2, [record(3, 42 + 2 ** 32, 30), record(1, 42, 5)]);
    const merged = mergeScans([b, a]);
    expect(merged.requests).toBe(3);
    expect(merged.duplicates).toBe(1);
    const ledger = buildLedger([b, a]);
    expect(ledger.charges.map((c) => c.tokens.output)).toEqual([10, 20, 30]);
  });

  it("the copy with the larger output counts, charged to the session of the file that comes first", () => {
    const original = scan("a.jsonl", "s-a", 1, [record(7, 7, 3)]);
    const resumed = scan("b.jsonl", "s-b", 1, [record(7, 7, 172), record(8, 8, 1)]);
    const ledger = buildLedger([resumed, original]);
    expect(ledger.charges.map((c) => [c.session, c.tokens.output])).toEqual([
      ["claude:s-a", 172],
      ["claude:s-b", 1],
    ]);
    expect(ledger.duplicates).toBe(1);
  });

  it("many requests (the table grows past its first size) are each counted once", () => {
    const records = Array.from({ length: 5000 }, (_, i) => record(i, i * 31, 1));
    const ledger = buildLedger([scan("a.jsonl", "s-a", 1, records), scan("b.jsonl", "s-b", 2, records.slice(0, 2500))]);
    expect(ledger.charges).toHaveLength(5000);
    expect(ledger.duplicates).toBe(2500);
  });
});
