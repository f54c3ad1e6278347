/**
 * The cached `usage` after any sequence of changes gives a cold run's report: files appended (with new requests
 * and with repeats of requests held here or elsewhere), added, removed and replaced, in sessions with subagent
 * files and resumed copies. The update (update.ts) keeps the rows, merge places and sessions of the files a
 * change does not reach: if it kept one it should have made again, the report or the sessions differ.
 */
import { appendFileSync, existsSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupUsage } from "../../src/usage/aggregate.ts";
import { collectUsage } from "../../src/usage/collect.ts";
import { condense, condenseGrown } from "../../src/usage/condense.ts";
import { mergeScans } from "../../src/usage/ledger.ts";
import { createPricer } from "../../src/usage/prices.ts";
import { scanFile } from "../../src/usage/scan-file.ts";
import { claudeLine, codexMeta, tempTree } from "./trees.ts";

/** A line: which request (a small pool, so files share some, or one of a larger pool, mostly new), its session, day, output and whether a subagent's. */
const lineArb = fc.record({
  request: fc.oneof(fc.integer({ min: 0, max: 11 }), fc.integer({ min: 12, max: 99 })),
  session: fc.integer({ min: 0, max: 3 }),
  day: fc.integer({ min: 1, max: 4 }),
  hour: fc.integer({ min: 10, max: 19 }),
  output: fc.integer({ min: 1, max: 900 }),
  model: fc.constantFrom("claude-sonnet-4-20250514", "claude-opus-4-20250514", "no-such-model"),
});
type Line = typeof lineArb extends fc.Arbitrary<infer T> ? T : never;

/** Six places a file can be: main transcripts of two projects, and subagent files of two sessions. */
const PLACES = [
  "projects/p/a.jsonl",
  "projects/p/b.jsonl",
  "projects/q/c.jsonl",
  "projects/q/d.jsonl",
  "projects/p/s-0/subagents/agent-1.jsonl",
  "projects/q/s-1/subagents/agent-2.jsonl",
];

const stepArb = fc.oneof(
  fc.record({
    kind: fc.constant("append" as const),
    place: fc.nat(PLACES.length - 1),
    lines: fc.array(lineArb, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant("write" as const),
    place: fc.nat(PLACES.length - 1),
    lines: fc.array(lineArb, { minLength: 1, maxLength: 4 }),
  }),
  fc.record({ kind: fc.constant("remove" as const), place: fc.nat(PLACES.length - 1) }),
  // The same lines appended to the first file too (a resumed session copies its requests).
  fc.record({
    kind: fc.constant("copy" as const),
    place: fc.integer({ min: 1, max: PLACES.length - 1 }),
    lines: fc.array(lineArb, { minLength: 1, maxLength: 2 }),
  }),
);

const text = (l: Line, place: string) =>
  `${JSON.stringify(
    claudeLine({
      message: `m${l.request}`,
      request: `r${l.request}`,
      session: `s-${place.includes("subagents") ? place.split("/")[2]?.slice(2) : l.session}`,
      time: `2026-03-0${l.day}T${l.hour}:00:00.000Z`,
      output: l.output,
      model: l.model,
      sidechain: place.includes("subagents"),
    }),
  )}\n`;

describe("usage update against a cold run", () => {
  it("gives a cold run's report and sessions after any sequence of appends, new files, removals and rewrites", async () => {
    const made = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineArb, { minLength: 1, maxLength: 4 }),
        // Each batch of changes is made before the next report: a report sees one to three files changed.
        fc.array(fc.array(stepArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
        async (first, batches) => {
          const tree = tempTree();
          const logs = join(tree.root, "logs");
          const cacheHome = join(tree.root, "cache");
          const path = (place: number) => join(logs, PLACES[place] ?? "");
          tree.write(`logs/${PLACES[0]}`, []);
          writeFileSync(path(0), first.map((l) => text(l, PLACES[0] ?? "")).join(""));
          let clock = Date.now() / 1000 + 1000;
          await report(logs, cacheHome, true);
          for (const steps of batches) {
            for (const step of steps) {
              const file = path(step.place);
              const place = PLACES[step.place] ?? "";
              if (step.kind === "remove") {
                if (existsSync(file) && step.place !== 0) rmSync(file);
              } else if (step.kind === "copy") {
                for (const at of [0, step.place]) {
                  if (existsSync(path(at))) appendFileSync(path(at), step.lines.map((l) => text(l, PLACES[at] ?? "")).join(""));
                }
              } else if (step.kind === "append" && existsSync(file)) appendFileSync(file, step.lines.map((l) => text(l, place)).join(""));
              else {
                tree.write(`logs/${place}`, []);
                writeFileSync(file, step.lines.map((l) => text(l, place)).join(""));
                // An mtime no earlier run saw: a rewrite of the same size is a change.
                clock += 10;
                utimesSync(file, clock, clock);
              }
            }
            const cached = await report(logs, cacheHome, true);
            const cold = await report(logs, cacheHome, false);
            made.add(cached.made);
            expect(cached.text).toBe(cold.text);
          }
        },
      ),
      { numRuns: 100 },
    );
    // The property exercised the update, not only full merges.
    expect([...made].sort()).toEqual(["kept", "merged", "updated"].filter((m) => made.has(m)));
    expect(made.has("updated")).toBe(true);
  }, 120_000);
});

describe("a file that grew alone", () => {
  it("has the rows a full merge gives it: its last rows, with the new requests summed in", () => {
    const pricer = createPricer();
    fc.assert(
      fc.property(fc.array(lineArb, { minLength: 1, maxLength: 6 }), fc.array(lineArb, { minLength: 1, maxLength: 6 }), (head, tail) => {
        const place = PLACES[4] ?? "";
        const tree = tempTree();
        const file = tree.write(place, []);
        writeFileSync(file, head.map((l) => text(l, place)).join(""));
        const before = scanFile({ path: file, agent: "claude" });
        // The tail's requests are new to the file: the rows it owns grow, none is replaced.
        appendFileSync(file, tail.map((l, i) => text({ ...l, request: 1000 + i }, place)).join(""));
        const after = scanFile({ path: file, agent: "claude", previous: before });
        if (before === undefined || after === undefined) throw new Error("the test file was not read");
        const last = condense(mergeScans([before]), pricer, "UTC").files[0];
        const full = condense(mergeScans([after]), pricer, "UTC").files[0];
        if (last === undefined) throw new Error("no file condensed");
        expect(condenseGrown(last, after, before.records.length, pricer, "UTC")).toEqual(full);
      }),
      { numRuns: 50 },
    );
  });

  it("is merged again with the files it shared a request with: growing may change which of them owns it", async () => {
    const at = (hour: number) => `2026-03-01T${hour}:00:00.000Z`;
    const shared = { message: "m1", request: "r1", time: at(10) };
    await expectUpdatedAsCold((tree) => {
      // Both start at 10:00; a.jsonl ends first, so it is merged first and owns the request they share.
      const a = tree.write("logs/projects/p/a.jsonl", [claudeLine({ ...shared, session: "s-1" })]);
      tree.write("logs/projects/p/b.jsonl", [
        claudeLine({ ...shared, session: "s-2" }),
        claudeLine({ message: "m2", request: "r2", session: "s-2", time: at(12) }),
      ]);
      // A request of its own at 15:00: a.jsonl now ends last, and b.jsonl owns the shared one.
      return [a, claudeLine({ message: "m3", request: "r3", session: "s-1", time: at(15) })];
    });
  });

  it("is not taken for appended when it was rewritten longer: the request it dropped goes to the file that shares it", async () => {
    const tree = tempTree();
    const logs = join(tree.root, "logs");
    const cacheHome = join(tree.root, "cache");
    const at = (hour: number) => `2026-03-01T${String(hour).padStart(2, "0")}:00:00.000Z`;
    const shared = { message: "m1", request: "r1", time: at(10) };
    // a.jsonl ends first, so it owns the request it shares with b.jsonl; c.jsonl holds a request a.jsonl will gain.
    const a = tree.write("logs/projects/p/a.jsonl", [claudeLine({ ...shared, session: "s-1" })]);
    tree.write("logs/projects/p/b.jsonl", [
      claudeLine({ ...shared, session: "s-2" }),
      claudeLine({ message: "m2", request: "r2", session: "s-2", time: at(12) }),
    ]);
    tree.write("logs/projects/q/c.jsonl", [claudeLine({ message: "m9", request: "r9", session: "s-3", time: at(9) })]);
    await report(logs, cacheHome, true);
    // Rewritten longer, without the shared request: b.jsonl owns it now, and only a key lookup from a.jsonl's
    // earlier keys (not its new ones, which lead to c.jsonl) finds b.jsonl.
    tree.write("logs/projects/p/a.jsonl", [
      claudeLine({ message: "m9", request: "r9", session: "s-1", time: at(10) }),
      claudeLine({ message: "m8", request: "r8", session: "s-1", time: at(11) }),
    ]);
    utimesSync(a, new Date(), new Date(Date.now() + 5_000));
    const cached = await report(logs, cacheHome, true);
    expect(cached.text).toBe((await report(logs, cacheHome, false)).text);
  });

  it("is merged again when a new line replaced one of its records in place (a Codex request counted again)", async () => {
    const time = "2026-03-01T10:00:00.000Z";
    // The older flat token_count: keyed by its time and total, so a line of the same time and total is the same request.
    const flat = (input: number, output: number) => ({
      timestamp: time,
      type: "event_msg",
      payload: { type: "token_count", input_tokens: input, output_tokens: output },
    });
    await expectUpdatedAsCold((tree) => [
      tree.write("logs/sessions/rollout-2026-03-01T10-00-00-x.jsonl", [...codexMeta("x", time), flat(100, 50)]),
      flat(50, 100),
    ]);
  });

  it("is merged again when its new lines first name its session", async () => {
    const { sessionId: _unnamed, ...line } = claudeLine({ message: "m1", request: "r1" }) as { sessionId: string };
    await expectUpdatedAsCold((tree) => [
      tree.write("logs/projects/p/a.jsonl", [line]),
      claudeLine({ message: "m2", request: "r2", session: "s-9" }),
    ]);
  });
});

/**
 * Writes the logs under `logs/` of a fresh tree (`write` returns a file and a line), reports, appends the line to
 * the file, and checks that the cached report is an update equal to a cold run's.
 */
async function expectUpdatedAsCold(write: (tree: ReturnType<typeof tempTree>) => [file: string, line: object]) {
  const tree = tempTree();
  const logs = join(tree.root, "logs");
  const cacheHome = join(tree.root, "cache");
  const [file, line] = write(tree);
  await report(logs, cacheHome, true);
  appendFileSync(file, `${JSON.stringify(line)}\n`);
  const cached = await report(logs, cacheHome, true);
  expect(cached.made).toBe("updated");
  expect(cached.text).toBe((await report(logs, cacheHome, false)).text);
}

/** The report `usage --by day --by session --breakdown` (by model in each) and the sessions (their files in order) are made of. */
async function report(root: string, cacheHome: string, cache: boolean) {
  const pricer = createPricer();
  const { ledger, made } = await collectUsage({
    paths: [root],
    env: { XDG_CACHE_HOME: cacheHome },
    cache,
    condensed: { pricer, timeZone: "UTC" },
  });
  const usage = groupUsage(ledger.charges, { by: ["day", "session"], timeZone: "UTC", breakdown: true, pricer, ledger });
  const sessions = [...ledger.sessions.values()];
  const json = JSON.stringify({ usage, sessions, duplicates: ledger.duplicates }, (_key, value: unknown) =>
    value instanceof Set ? [...value].sort() : value,
  );
  return { text: json, made };
}
