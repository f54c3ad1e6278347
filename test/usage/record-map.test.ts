/** A scanner's records read on from an earlier read: a Map's order and values. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toColumns } from "../../src/usage/columns.ts";
import { RecordMap } from "../../src/usage/record-map.ts";
import { type UsageRecord, zeroTokens } from "../../src/usage/types.ts";

const record = (
  hi: number,
  output: number,
  model: string | null = "claude-sonnet-4-20250514",
  extra: Partial<UsageRecord> = {},
): UsageRecord => ({
  key: { id: `${hi}.${hi + 1}`, hi, lo: hi + 1 },
  time: 1_000 + hi,
  model,
  tokens: { ...zeroTokens(), output },
  costUsd: null,
  sidechain: false,
  ...extra,
});

/** What a Map of the same records, given the same calls, holds in order: keys and outputs. */
const rows = (columns: ReturnType<typeof toColumns>) =>
  Array.from({ length: columns.length }, (_, i) => [
    columns.keyHi[i],
    columns.tokens[i * 6 + 1],
    columns.models[columns.model[i] ?? -1] ?? null,
  ]);

describe("RecordMap", () => {
  it("reads on like a Map of the earlier records: set in place, delete and set last, new keys last", () => {
    const earlier = [record(1, 10), record(2, 20, "claude-opus-4-20250514"), record(3, 30), record(4, 40)];
    const map = new RecordMap(toColumns(earlier));
    const reference = new Map(earlier.map((r) => [r.key.id, r]));
    // The calls a scanner makes: a record set again, one deleted and set again, one deleted, a new one set twice.
    const calls: ["set" | "delete", UsageRecord][] = [
      ["set", record(2, 25, "claude-haiku-4-5-20251001")],
      ["delete", record(1, 0)],
      ["set", record(1, 15)],
      ["delete", record(4, 0)],
      ["set", record(5, 50, null)],
      ["set", record(5, 55)],
    ];
    expect(map.has(record(2, 0).key)).toBe(true);
    for (const [call, r] of calls) {
      if (call === "set") {
        map.set(r.key, r);
        reference.set(r.key.id, r);
      } else {
        map.delete(r.key);
        reference.delete(r.key.id);
      }
    }
    expect(map.size).toBe(reference.size);
    expect(map.has(record(4, 0).key)).toBe(false);
    expect(rows(map.columns())).toEqual(rows(toColumns([...reference.values()])));
  });

  it("keeps the earlier rows when nothing changed, and Codex threads across the copy", () => {
    const earlier = toColumns([record(1, 10, "gpt-5", { cumulative: true, thread: "t-1" }), record(2, 20)]);
    expect(rows(new RecordMap(earlier).columns())).toEqual(rows(earlier));
    const map = new RecordMap(earlier);
    map.set(record(3, 0).key, record(3, 30, "gpt-5", { cumulative: true, thread: "t-1" }));
    expect(map.columns().threads).toEqual(["t-1", null, "t-1"]);
  });

  it("agrees with a Map for any calls on any earlier rows ", () => {
    const call = fc.tuple(
      fc.constantFrom("set" as const, "delete" as const),
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 0, max: 99 }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 }), fc.array(call, { maxLength: 16 }), (count, calls) => {
        const earlier = Array.from({ length: count }, (_, i) => record(i + 1, 10 * (i + 1)));
        const map = new RecordMap(toColumns(earlier));
        const reference = new Map(earlier.map((r) => [r.key.id, r]));
        for (const [kind, hi, output] of calls) {
          const r = record(hi, output, hi % 3 === 0 ? null : "claude-sonnet-4-20250514");
          if (kind === "set") {
            map.set(r.key, r);
            reference.set(r.key.id, r);
          } else {
            map.delete(r.key);
            reference.delete(r.key.id);
          }
        }
        expect(rows(map.columns())).toEqual(rows(toColumns([...reference.values()])));
      }),
    );
  });
});
