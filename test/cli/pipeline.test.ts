/** The CLI pipeline as sources × sinks: any source feeds any sink; output is batched per chunk, with backpressure. */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readInputs } from "../../src/cli/input.ts";
import { parseCommandLine } from "../../src/cli/args.ts";
import type { CliOutput } from "../../src/cli/io.ts";
import { createBatchedOutput } from "../../src/cli/output.ts";
import { readingOptions } from "../../src/cli/reading-options.ts";
import { run } from "../../src/cli/run.ts";
import { createRecordSink } from "../../src/cli/sinks/record-sink.ts";
import type { Sink } from "../../src/cli/sinks/sink.ts";
import { iterableSource } from "../../src/cli/sources/iterable.ts";
import type { Source } from "../../src/cli/sources/source.ts";
import type { AgentEvent } from "../../src/model/events.ts";
import { getOutputFormat } from "../../src/output-formats.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";

const reading = parseCommandLine(readingOptions, []).values;
const synthetic = [
  '{"type":"thread.started","thread_id":"t1"}',
  '{"type":"turn.started"}',
  '{"type":"item.completed","item":{"id":"i1","type":"agent_message","text":"hello"}}',
  '{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":2}}',
].join("\n");

/** A source that yields `text` in pieces of `size` bytes and logs each pull. */
function piecewise(name: string, text: string, size: number, log: string[]): Source {
  const bytes = new TextEncoder().encode(text);
  return {
    name,
    chunks: async function* () {
      for (let i = 0; i < bytes.length; i += size) {
        log.push(`pull ${i / size}`);
        yield bytes.subarray(i, i + size);
      }
    },
  };
}

/** A stdout that logs each write and settles it only when the test says so (a slow consumer). */
function slowStdout(log: string[]): CliOutput & { text: () => string } {
  let text = "";
  let n = 0;
  return {
    isTTY: false,
    write(piece) {
      const i = n++;
      text += piece;
      log.push(`write ${i}`);
      return new Promise<void>((resolve) =>
        setImmediate(() => {
          log.push(`drained ${i}`);
          resolve();
        }),
      );
    },
    text: () => text,
  };
}

/** A sink that records what it was called with. */
function recordingSink(calls: string[]): Sink {
  return {
    event: (event: AgentEvent, input) => void calls.push(`${input}: ${event.type}`),
    endInput: (run) => void calls.push(`end input ${run.name}`),
    end: (runs) => void calls.push(`end ${runs.length}`),
  };
}

describe("readInputs: source → reader → sink", () => {
  it("any source feeds any sink: events per input, endInput per input, end once", async () => {
    const calls: string[] = [];
    const io = fakeIo();
    const sources = [
      iterableSource(
        "one",
        (async function* () {
          yield synthetic;
        })(),
      ),
      piecewise("two", synthetic, 7, []),
    ];
    const runs = await readInputs({ sources, io, reading, sink: recordingSink(calls) });
    expect(runs.map((r) => r.name)).toEqual(["one", "two"]);
    const one = calls.filter((c) => c.startsWith("one: ")).map((c) => c.slice(5));
    expect(one).toContain("session.started");
    expect(calls.filter((c) => c.startsWith("two: "))).toHaveLength(one.length);
    expect(calls.slice(calls.indexOf("end input one") + 1, -2).every((c) => c.startsWith("two: "))).toBe(true);
    expect(calls.slice(-2)).toEqual(["end input two", "end 2"]);
  });

  it("writes at most once per chunk read, and reads the next chunk only after the last write drained", async () => {
    const log: string[] = [];
    const io = fakeIo();
    const stdout = slowStdout(log);
    const output = createBatchedOutput(stdout);
    const sink = createRecordSink(getOutputFormat("agentstream"), {}, output);
    await readInputs({ sources: [piecewise("piecewise", synthetic, 40, log)], io, reading, sink, output });
    const pulls = log.filter((l) => l.startsWith("pull")).length;
    const writes = log.filter((l) => l.startsWith("write")).length;
    expect(pulls).toBeGreaterThan(3);
    expect(writes).toBeGreaterThan(0);
    expect(writes).toBeLessThanOrEqual(pulls + 1);
    // Backpressure: after each write, its drain comes before the next pull.
    for (const [i, entry] of log.entries()) {
      if (!entry.startsWith("write ")) continue;
      const drained = log.indexOf(`drained ${entry.slice(6)}`);
      const nextPull = log.findIndex((l, j) => j > i && l.startsWith("pull"));
      if (nextPull >= 0) expect(drained).toBeLessThan(nextPull);
    }
    // The same records as `agentstream convert` writes for the same input.
    const cli = fakeIo({ stdin: synthetic });
    expect(await run(["convert"], cli)).toBe(0);
    expect(stdout.text()).toBe(cli.out());
  });

  it.skipIf(!hasShared)("a real capture through a chunked source gives what convert gives for the file", async () => {
    const file = sharedPath("fixtures/codex/agentcmd_exec_json_stream-output-1.jsonl");
    const io = fakeIo();
    const stdout = slowStdout([]);
    const output = createBatchedOutput(stdout);
    const sink = createRecordSink(getOutputFormat("agentstream"), {}, output);
    await readInputs({ sources: [piecewise(file, readFileSync(file, "utf8"), 333, [])], io, reading, sink, output });
    const cli = fakeIo();
    expect(await run(["convert", file], cli)).toBe(0);
    expect(stdout.text().length).toBeGreaterThan(0);
    expect(stdout.text()).toBe(cli.out());
  });
});
