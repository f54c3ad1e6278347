/**
 * The built runAgent (dist/), where the events and oneshot logs are written by a worker thread: the
 * logs must hold exactly what the in-thread writer would have written for the events the consumer
 * received, on a real capture and with integers beyond 2^53 (which a structured clone would round).
 * The TypeScript sources write in-thread (test/run/run-agent.test.ts covers that path).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/model/events.ts";
import type * as RunModule from "../../src/run/run-agent.ts";
import type * as AgentstreamWriter from "../../src/formats/agentstream/encode.ts";
import type * as FormatWriter from "../../src/formats/writer.ts";
import type * as OneshotFormat from "../../src/formats/oneshot/index.ts";
import type * as HeldStringsModule from "../../src/framing/held-strings.ts";
import type * as LogsModule from "../../src/run/_logs.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const built = join(repoRoot, "dist/run/run-agent.js");

async function runBuilt(
  command: string,
  args: readonly string[],
  dialect: string,
  hold = false,
): Promise<{ events: AgentEvent[]; dir: string; standIns: number }> {
  const { runAgentHolding } = (await import(pathToFileURL(built).href)) as typeof RunModule;
  const module = (await import(pathToFileURL(join(repoRoot, "dist/framing/held-strings.js")).href)) as typeof HeldStringsModule;
  const held = hold ? new module.HeldStrings() : undefined;
  const dir = join(tempDir("log-worker"), "logs");
  const run = runAgentHolding(command, args, { dialect, heartbeatMs: 0, log: dir, runId: "w" }, held);
  const events: AgentEvent[] = [];
  let standIns = 0;
  for await (const event of run.events) {
    // As the record sink does: the event's text is taken (here: read), then its held strings let go of.
    const resolved = held === undefined ? event : module.withHeldTexts(event, held);
    if (resolved !== event) standIns++;
    events.push(resolved);
    if (held !== undefined) module.releaseHeld(event, held);
  }
  expect(held?.size ?? 0).toBe(0);
  const result = await run.result;
  expect(result.logs?.events).toBe(join(dir, "w.events.ndjson"));
  return { events, dir, standIns };
}

/** What the in-thread writer makes of the same events (the built one: its LosslessInteger is the events'). */
async function expectedLogs(events: readonly AgentEvent[]): Promise<{ events: string; oneshot: string }> {
  const { toLine } = (await import(pathToFileURL(join(repoRoot, "dist/formats/agentstream/encode.js")).href)) as typeof AgentstreamWriter;
  const { createFormatWriter } = (await import(pathToFileURL(join(repoRoot, "dist/formats/writer.js")).href)) as typeof FormatWriter;
  const { oneshotFormat } = (await import(pathToFileURL(join(repoRoot, "dist/formats/oneshot/index.js")).href)) as typeof OneshotFormat;
  // The log's writer knows the run (its id, and that a completion closes the log).
  const oneshot = createFormatWriter(oneshotFormat, { run: { runId: "w" } });
  let packets = "";
  for (const event of events) packets += oneshot.write(event);
  packets += oneshot.end();
  return { events: events.map((event) => `${toLine(event)}\n`).join(""), oneshot: packets };
}

/** A log's text with every time from `since` on (a receipt time, and the span a synthesized completion takes from them) made one placeholder. */
function withoutReceiptTimes(text: string, since: number): string {
  return text
    .replace(/"time":"([^"]+)"/g, (all, time: string) => (Date.parse(time) >= since ? '"time":"received"' : all))
    .replace(/"timestamp":[\d.]+,"ts_ms":(\d+)/g, (all, ms: string) => (Number(ms) >= since ? '"timestamp":0,"ts_ms":0' : all))
    .replace(/"stats":\{"duration_ms":\d+\},"synthesized":true/g, '"stats":{},"synthesized":true');
}

describe.skipIf(!existsSync(built))("runAgent's log worker (built)", () => {
  it("asks for the agent to be paused once its events are behind by more than 1 MiB of output, and lets it go when caught up", async () => {
    const { openRunLogs } = (await import(pathToFileURL(join(repoRoot, "dist/run/_logs.js")).href)) as typeof LogsModule;
    const dir = join(tempDir("log-worker"), "logs");
    let paused = false;
    let pauses = 0;
    let resumed: () => void = () => {};
    const caughtUp = new Promise<void>((resolve) => {
      resumed = resolve;
    });
    const flow = {
      onBehind() {
        paused = true;
        pauses++;
      },
      onCaughtUp() {
        paused = false;
        resumed();
      },
    };
    const logs = openRunLogs(dir, "b", { flow });
    // A flood fed without yielding: the worker's replies wait for the next turn, so nothing is counted as written meanwhile.
    let batches = 0;
    while (!paused && batches < 100) {
      for (let i = 0; i < 64; i++) {
        const seq = batches * 64 + i;
        logs.event({ v: 1, seq, type: "notice", kind: "probe", level: "info", text: `${seq} ${"x".repeat(1000)}` } as AgentEvent);
      }
      logs.flush(1 << 20);
      batches++;
    }
    // What waits for the worker is bounded by the high-water mark, whatever the agent has left to say.
    expect(batches).toBe(2);
    expect(pauses).toBe(1);
    await caughtUp;
    expect(paused).toBe(false);
    await logs.close({});
    const lines = readFileSync(join(dir, "b.events.ndjson"), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(2 * 64);
    expect(lines.map((line) => (JSON.parse(line) as { seq: number }).seq)).toEqual(Array.from({ length: 2 * 64 }, (_, i) => i));
  });

  it.skipIf(!hasShared)("writes the same events and oneshot logs as the in-thread writer, on a real capture", async () => {
    const capture = sharedPath("fixtures/claude/meridian_streaming_turn_partial.ndjson");
    const { events, dir } = await runBuilt("cat", [capture], "claude");
    expect(events.length).toBeGreaterThan(20);
    const expected = await expectedLogs(events);
    expect(readFileSync(join(dir, "w.events.ndjson"), "utf8")).toBe(expected.events);
    expect(readFileSync(join(dir, "w-oneshot-log.json"), "utf8")).toBe(expected.oneshot);
    expect(readFileSync(join(dir, "w.raw"))).toEqual(readFileSync(capture));
  });

  it("keeps integers beyond 2^53 digit for digit through the worker", async () => {
    const line = '{"type":"probe","id":12345678901234567891,"nested":[{"n":-98765432109876543210}]}';
    const { events, dir } = await runBuilt(process.execPath, ["-e", `console.log(${JSON.stringify(line)})`], "json");
    const logged = readFileSync(join(dir, "w.events.ndjson"), "utf8");
    expect(logged).toContain("12345678901234567891");
    expect(logged).toContain("-98765432109876543210");
    expect(logged).toBe((await expectedLogs(events)).events);
  });

  it("writes batches and lines bigger than its 4 MiB buffer whole, in order", async () => {
    // Three 1.5 MiB lines (a batch that outgrows the buffer) and one 5 MiB line (bigger than it), non-ASCII included.
    const agent = `const out = [];
      for (let i = 0; i < 3; i++) out.push(JSON.stringify({ type: "probe", i, text: "é→🙂 ".repeat(262144) }));
      out.push(JSON.stringify({ type: "probe", i: 3, text: "x".repeat(5 * 1048576) }));
      process.stdout.write(out.join("\\n") + "\\n");`;
    const { events, dir } = await runBuilt(process.execPath, ["-e", agent], "json");
    expect(events.filter((event) => event.type === "unknown")).toHaveLength(4);
    const expected = await expectedLogs(events);
    expect(readFileSync(join(dir, "w.events.ndjson"), "utf8")).toBe(expected.events);
    expect(readFileSync(join(dir, "w-oneshot-log.json"), "utf8")).toBe(expected.oneshot);
  });

  it.skipIf(!hasShared)("writes long tool outputs (escaped once, spliced into both logs) as the in-thread writer does", async () => {
    // A real Bash result, its output (and the stdout that repeats it) made long, with text that needs
    // escaping: quotes, backslashes, control characters, non-ASCII, a lone surrogate, U+2028.
    const output = `line "one" \\ \t\u0001 é→🙂 \ud800 \u2028 ${"0123456789".repeat(2000)}\n`.repeat(3);
    const capture = readFileSync(sharedPath("fixtures/claude/ralph_partial_bash_success_2.1.218.jsonl"), "utf8");
    const long = capture
      .split("\n")
      .map((line) => line.replaceAll('"test-msg-delta"', JSON.stringify(output)))
      .join("\n");
    const file = join(tempDir("log-worker"), "long-output.jsonl");
    writeFileSync(file, long);
    const { events, dir } = await runBuilt("cat", [file], "claude");
    const completed = events.find((event) => event.type === "tool.completed");
    expect(completed?.type === "tool.completed" && completed.output).toBe(output);
    const expected = await expectedLogs(events);
    expect(readFileSync(join(dir, "w.events.ndjson"), "utf8")).toBe(expected.events);
    expect(readFileSync(join(dir, "w-oneshot-log.json"), "utf8")).toBe(expected.oneshot);
  });

  it.skipIf(!hasShared)(
    "holding strings, splices long tool outputs' input bytes into both logs: the same logs as a full read",
    async () => {
      // Canonical JSON text (held as bytes), and one with an escaped lone surrogate (read in full, by decision).
      const capture = readFileSync(sharedPath("fixtures/claude/ralph_partial_bash_success_2.1.218.jsonl"), "utf8");
      for (const [output, held] of [
        [`line "one" \\ \t\u0001 é→🙂 \u2028 ${"0123456789".repeat(2000)}\n`.repeat(3), true],
        [`line "one" \ud800 ${"0123456789".repeat(2000)}\n`.repeat(3), false],
      ] as const) {
        const file = join(tempDir("log-worker"), "long-output.jsonl");
        // And a tool_result without its tool_use_id: the decoder quotes it whole in a notice.
        const orphan = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":${JSON.stringify(output)}}]}}\n`;
        writeFileSync(file, capture.replaceAll('"test-msg-delta"', JSON.stringify(output)) + orphan);
        const since = Date.now();
        const full = await runBuilt("cat", [file], "claude");
        const raw = await runBuilt("cat", [file], "claude", true);
        expect(raw.standIns > 0).toBe(held);
        expect(full.standIns).toBe(0);
        // Two runs: the same but for when each received what it read (docs/events.md, Times).
        const received = (events: readonly AgentEvent[]) =>
          events.map((event) => (event.time !== undefined && Date.parse(event.time) >= since ? { ...event, time: "received" } : event));
        expect(received(raw.events)).toEqual(received(full.events));
        for (const log of ["w.events.ndjson", "w-oneshot-log.json", "w.raw"])
          expect(withoutReceiptTimes(readFileSync(join(raw.dir, log), "utf8"), since), log).toBe(
            withoutReceiptTimes(readFileSync(join(full.dir, log), "utf8"), since),
          );
        expect(withoutReceiptTimes(readFileSync(join(raw.dir, "w.events.ndjson"), "utf8"), since)).toBe(
          withoutReceiptTimes((await expectedLogs(full.events)).events, since),
        );
      }
    },
  );
});
