/** The last result kept between runs (result-cache.ts) and the packed columns it is stored in (packed.ts). */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { GROUP_DIMENSIONS, groupUsage } from "../../src/usage/aggregate.ts";
import { chargeArray, joinCharges, PackedCharges, packCharges } from "../../src/usage/charge-list.ts";
import { chargeFilter, parseFilter } from "../../src/usage/filters.ts";
import type { Condensed, CondensedFile } from "../../src/usage/condense.ts";
import type { Charge, LedgerSession } from "../../src/usage/ledger.ts";
import { Packer, Unpacker } from "../../src/usage/packed.ts";
import { createPricer } from "../../src/usage/prices.ts";
import { loadLastResult, resultKey, saveResult } from "../../src/usage/result-cache.ts";
import { tempDir } from "../helpers/temp.ts";

/** Packs the strings and a column on each side of them, and reads them back. */
function roundTrip(strings: readonly string[]): { strings: readonly string[]; before: number[]; after: number[] } {
  const packer = new Packer();
  packer.u8([7, 8, 9]);
  const text = packer.strings(strings);
  packer.f64([1.5, Number.NaN]);
  const out = Buffer.concat(packer.chunks());
  const unpacker = new Unpacker(out, 0);
  const before = [...unpacker.u8(3)];
  const read = unpacker.strings(strings.length, text.bytes, text.encoding).values;
  return { strings: read, before, after: [...unpacker.f64(2)] };
}

describe("packed columns", () => {
  it("give back any strings as they were, lone surrogates, newlines and empty strings included, between other columns", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom("", "\n", "a\nb", "\ud800", "\udc00x", "é/日本/🙂"))),
        (strings) => {
          expect(roundTrip(strings)).toEqual({ strings, before: [7, 8, 9], after: [1.5, Number.NaN] });
        },
      ),
      { numRuns: 500 },
    );
  });

  it("stores well-formed text as UTF-8, and text with a lone surrogate as UTF-16", () => {
    expect(new Packer().strings(["a", "é"]).encoding).toBe("utf8");
    expect(new Packer().strings(["a\ud800", "b"]).encoding).toBe("utf16le");
    // A high surrogate ending one string and a low one starting the next: each alone, a pair when joined.
    expect(roundTrip(["x\ud83d", "\ude42y"]).strings).toEqual(["x\ud83d", "\ude42y"]);
  });

  it("write a column made of chunks one after the other, padded once, and loaded strings with more after them", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 13 }), { maxLength: 5 }),
        fc.array(fc.string({ unit: "grapheme" }), { maxLength: 6 }),
        fc.array(fc.string({ unit: "grapheme" }), { maxLength: 6 }),
        (chunks, loaded, more) => {
          const first = new Packer();
          const text = first.strings(loaded);
          const read = new Unpacker(Buffer.concat(first.chunks()), 0).strings(loaded.length, text.bytes, text.encoding);
          const packer = new Packer();
          packer.run(chunks.map((chunk) => Uint8Array.from(chunk)));
          const after = packer.stringsAfter(read, more);
          packer.f64([2.5]);
          const unpacker = new Unpacker(Buffer.concat(packer.chunks()), 0);
          expect([...unpacker.u8(chunks.flat().length)]).toEqual(chunks.flat());
          expect(after && unpacker.strings(loaded.length + more.length, after.bytes, after.encoding).values).toEqual([...loaded, ...more]);
          expect([...unpacker.f64(1)]).toEqual([2.5]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("says so when the columns run past the end of the buffer", () => {
    const unpacker = new Unpacker(Buffer.alloc(16), 0);
    unpacker.f64(2);
    expect(() => unpacker.i32(1)).toThrow(/ends early/);
  });
});

describe("the result cache", () => {
  const session = (over: Partial<LedgerSession> & Pick<LedgerSession, "key" | "files">): LedgerSession => ({
    agent: "claude",
    sessionId: null,
    project: null,
    start: null,
    end: null,
    status: "unknown",
    badLines: 0,
    ...over,
  });
  const charge = (over: Partial<Charge> & Pick<Charge, "session">): Charge => ({
    agent: "claude",
    time: null,
    model: null,
    tokens: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, cacheWrite1h: 1, reasoning: 0 },
    costUsd: null,
    sidechain: false,
    requests: 1,
    estimated: { usd: 0.25, unpriced: false },
    ...over,
  });

  const file = (path: string, rows: Charge[], independent: boolean): CondensedFile => ({
    path,
    size: 10,
    mtimeMs: 1.5,
    session: rows[0]?.session ?? "",
    start: rows[0]?.time ?? null,
    end: null,
    group: independent ? path : "/a.jsonl",
    independent,
    repeated: independent ? 0 : 1,
    rows,
  });
  /** A result's files (rows as charges), sessions and ledger, to compare. */
  const contents = (condensed: Condensed | undefined) =>
    condensed && {
      files: condensed.files.map((f) => ({ ...f, rows: chargeArray(f.rows) })),
      sessions: [...condensed.ledger.sessions.values()],
      ledger: { ...condensed.ledger, charges: chargeArray(condensed.ledger.charges) },
    };

  it("saves an update from the columns of the result it updates as it saves it whole, whatever was kept, moved or added", () => {
    const sessions = [
      session({ key: "claude:s-1", sessionId: "s-1", project: "/p", start: 1, end: 5, files: ["/a.jsonl", "/own-string.jsonl"] }),
      session({ key: "claude:s-2", sessionId: "s-2", project: "/q", files: ["/b.jsonl"] }),
      session({ key: "claude:s-3", sessionId: "s-3", files: ["/c.jsonl"] }),
    ];
    const charges = [
      charge({ session: "claude:s-1", model: "m-1", time: 1_000, day: 0 }),
      charge({ session: "claude:s-2", model: "m-2", time: 2_000, day: 0 }),
      charge({ session: "claude:s-3", time: 3_000, day: 0, costUsd: 0.5 }),
    ];
    const files = [
      file("/a.jsonl", charges.slice(0, 1), true),
      file("/b.jsonl", charges.slice(1, 2), true),
      file("/c.jsonl", charges.slice(2), true),
    ];
    const dir = tempDir("result-update");
    const key = resultKey(createPricer(), "UTC");
    const found = files.map(({ path, size, mtimeMs }) => ({ path, agent: undefined, size, mtimeMs }));
    saveResult(
      dir,
      key,
      { ledger: { charges, sessions: new Map(sessions.map((x) => [x.key, x])), duplicates: 0, timeZone: "UTC" }, files },
      [],
    );
    // New paths: one UTF-8 text can follow, one with a lone surrogate it cannot (everything is packed afresh).
    for (const newPath of ["/d-é.jsonl", "/d-\ud800.jsonl"]) {
      const last = loadLastResult(dir, found, key, "UTC");
      if (last === undefined) throw new Error("not loaded");
      const fileAt = (path: string) => last.condensed.files.find((f) => f.path === path) as CondensedFile;
      const sessionOf = (key: string) => last.condensed.ledger.sessions.get(key) as LedgerSession;
      const [a, b] = [fileAt("/a.jsonl"), fileAt("/b.jsonl")];
      // Kept: file a and session s-1; b grew (a new object, the same strings); the rest gone; a new file and session first.
      const d = charge({ session: "claude:s-4", model: "m-3", time: 500, day: 0 });
      const grown = { ...b, size: 20, rows: [charge({ session: "claude:s-2", model: "m-2", time: 2_000, day: 0, requests: 2 })] };
      const update: Condensed = {
        ledger: {
          charges: [d, ...chargeArray(a.rows), ...chargeArray(grown.rows)],
          sessions: new Map([
            ["claude:s-4", session({ key: "claude:s-4", sessionId: "s-4", files: [newPath] })],
            ["claude:s-1", sessionOf("claude:s-1")],
            ["claude:s-2", { ...sessionOf("claude:s-2"), end: 9, project: "/other" }],
          ]),
          duplicates: 0,
          timeZone: "UTC",
        },
        files: [file(newPath, [d], true), a, grown],
      };
      const whole = tempDir("result-whole");
      saveResult(whole, key, update, []);
      saveResult(dir, key, update, [], last);
      const now = update.files.map(({ path, size, mtimeMs }) => ({ path, agent: undefined, size, mtimeMs }));
      const fromColumns = loadLastResult(dir, now, key, "UTC");
      expect(fromColumns?.exact).toBe(true);
      expect(contents(fromColumns?.condensed)).toEqual(contents(loadLastResult(whole, now, key, "UTC")?.condensed));
      expect(contents(fromColumns?.condensed)?.sessions[0]?.files).toEqual([newPath]);
    }
  });

  it("loads what was saved: every file, session and row, odd strings and nulls included", () => {
    const sessions = [
      session({
        key: "claude:s-1",
        sessionId: "s-1",
        project: "/work/é 日本",
        start: 1,
        end: 5,
        status: "completed",
        files: ["/a.jsonl", "/a/subagents/agent-1.jsonl"],
        badLines: 2,
      }),
      session({ key: "codex:/b\nnewline.jsonl", agent: "codex", status: "open", files: ["/b\nnewline.jsonl"] }),
      session({ key: "gemini:\ud800", agent: "gemini", sessionId: "\ud800", status: "error", files: ["/not-a-file-of-the-result.json"] }),
    ];
    const charges = [
      charge({ session: "claude:s-1", model: "claude-sonnet-4-20250514", time: 1_000, day: 0, costUsd: 0.5 }),
      charge({
        session: "claude:s-1",
        model: "claude-opus-4-20250514",
        sidechain: true,
        requests: 3,
        estimated: { usd: 0, unpriced: true },
      }),
      charge({ session: "codex:/b\nnewline.jsonl", agent: "codex", model: "gpt-5", time: 2_000, day: 0 }),
    ];
    const condensed: Condensed = {
      ledger: { charges, sessions: new Map(sessions.map((s) => [s.key, s])), duplicates: 1, timeZone: "UTC" },
      files: [
        file("/a.jsonl", charges.slice(0, 1), true),
        file("/a/subagents/agent-1.jsonl", charges.slice(1, 2), false),
        file("/b\nnewline.jsonl", charges.slice(2), true),
      ],
    };
    const dir = tempDir("result-cache");
    const pricer = createPricer();
    const key = resultKey(pricer, "UTC");
    const unreadable = { path: "/unreadable.jsonl", agent: undefined, size: 5, mtimeMs: 2 };
    saveResult(dir, key, condensed, [unreadable]);
    // The files found, in another order than the result's (merge order): the same files.
    const found = [unreadable, ...condensed.files.map(({ path, size, mtimeMs }) => ({ path, agent: undefined, size, mtimeMs }))].reverse();
    const loaded = loadLastResult(dir, found, key, "UTC");
    expect(loaded?.exact).toBe(true);
    expect(loaded?.unreadable).toEqual(["/unreadable.jsonl"]);
    // The rows come back packed (charge-list.ts): compared as the charges they stand for.
    const rowsOf = (files: readonly CondensedFile[] | undefined) => files?.map((f) => ({ ...f, rows: chargeArray(f.rows) }));
    expect(rowsOf(loaded?.condensed.files)).toEqual(rowsOf(condensed.files));
    expect([...(loaded?.condensed.ledger.sessions.values() ?? [])]).toEqual(sessions);
    const ledger = loaded?.condensed.ledger;
    expect(ledger === undefined ? undefined : { ...ledger, charges: chargeArray(ledger.charges) }).toEqual(condensed.ledger);
    // Not exact: a file grown, one missing, one twice instead of another, the unreadable one changed.
    const [first, second] = found;
    if (first === undefined || second === undefined) throw new Error("no files");
    for (const other of [
      [{ ...first, size: 6 }, ...found.slice(1)],
      found.slice(1),
      [first, first, ...found.slice(2)],
      found.map((file) => (file.path === unreadable.path ? { ...file, mtimeMs: 3 } : file)),
    ]) {
      expect(loadLastResult(dir, other, key, "UTC")?.exact).toBe(false);
    }
    expect(loadLastResult(dir, found, resultKey(pricer, "Asia/Kolkata"), "Asia/Kolkata")).toBeUndefined();
  });

  it("a report sums the loaded rows as it sums the same charges one by one, for any grouping, breakdown and filter", () => {
    const DAY = 86_400_000;
    const sessions = [
      session({ key: "claude:s-1", sessionId: "s-1", project: "/work/a", files: ["/a.jsonl"] }),
      session({ key: "codex:/b.jsonl", agent: "codex", files: ["/b.jsonl"] }),
      session({ key: "claude:s-3", sessionId: "s-3", project: "/work/b", files: ["/c.jsonl"] }),
    ];
    const chargeArb = fc
      .record({
        session: fc.nat(2),
        model: fc.constantFrom("claude-sonnet-4-20250514", "gpt-5", null),
        time: fc.option(fc.integer({ min: 20_000 * DAY, max: 20_040 * DAY })),
        counts: fc.array(fc.nat(5_000_000), { minLength: 6, maxLength: 6 }),
        costUsd: fc.option(fc.double({ min: 0, max: 10, noNaN: true })),
        usd: fc.double({ min: 0, max: 10, noNaN: true }),
        unpriced: fc.boolean(),
        requests: fc.integer({ min: 1, max: 5 }),
        sidechain: fc.boolean(),
      })
      .map(({ session: s, counts, time, usd, unpriced, ...rest }): Charge => {
        const [input = 0, output = 0, cacheRead = 0, cacheWrite = 0, cacheWrite1h = 0, reasoning = 0] = counts;
        const owner = sessions[s] ?? sessions[0];
        return {
          ...rest,
          agent: owner?.agent ?? "claude",
          session: owner?.key ?? "",
          time,
          ...(time === null ? {} : { day: Math.floor(time / DAY) }),
          tokens: { input, output, cacheRead, cacheWrite, cacheWrite1h, reasoning },
          estimated: { usd, unpriced },
        };
      });
    const pricer = createPricer();
    fc.assert(
      fc.property(
        fc.array(chargeArb, { maxLength: 80 }),
        fc.subarray([...GROUP_DIMENSIONS], { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.option(fc.record({ since: fc.constantFrom("2024-10-05", "2024-10-20"), project: fc.constantFrom("/work/a", "/work") })),
        (charges, by, breakdown, filter) => {
          const { rows, models } = packCharges(charges, new Map(sessions.map((s, i) => [s.key, i])));
          const packed = new PackedCharges({ rows, sessions, models });
          const ledger = { charges: packed, sessions: new Map(sessions.map((s) => [s.key, s])), duplicates: 0, timeZone: "UTC" };
          const include = filter === null ? undefined : chargeFilter(parseFilter({ ...filter, tz: "UTC" }), ledger);
          const options = { by, timeZone: "UTC", breakdown, pricer, ledger, ...(include === undefined ? {} : { include }) };
          expect(groupUsage(packed, options)).toEqual(groupUsage(chargeArray(packed), options));
          // One session's charges put in the list's terms (an appended file's rows brought up to date) are the
          // same charges, and a report over both lists sums them in the cells it made for the first.
          const key = sessions[0]?.key;
          const own = charges.findIndex((charge) => charge.session === key);
          if (own === -1) return;
          const mine = chargeArray(packed).filter((charge) => charge.session === key);
          const alike = packed.slice(own, 1).alike(mine);
          expect(alike === undefined ? undefined : chargeArray(alike)).toEqual(mine);
          const both = joinCharges([packed, alike ?? []]);
          expect(groupUsage(both, options)).toEqual(groupUsage(chargeArray(both), options));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("puts charges in a packed list's terms only when their session is the list's and their models are listed", () => {
    const sessions = [session({ key: "claude:s-1", files: ["/a.jsonl"] }), session({ key: "claude:s-2", files: ["/b.jsonl"] })];
    const mine = (over: Partial<Charge> = {}): Charge =>
      charge({ session: "claude:s-1", time: 0, day: 0, model: "claude-sonnet-4-20250514", ...over });
    const charges = [mine(), mine({ session: "claude:s-2" })];
    const { rows, models } = packCharges(charges, new Map(sessions.map((s, i) => [s.key, i])));
    const packed = new PackedCharges({ rows, sessions, models });
    expect(packed.slice(0, 1).alike([mine({ time: 5 })])?.source.sessions).toBe(sessions);
    expect(packed.slice(1, 1).alike([mine()])).toBeUndefined();
    expect(packed.slice(0, 1).alike([mine({ model: "gpt-5" })])).toBeUndefined();
    expect(packed.slice(0, 0).alike([mine()])).toBeUndefined();
  });
});
