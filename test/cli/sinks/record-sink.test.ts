/** The record sink: `--to agentstream` writes a long tool output's bytes once per field, spliced where the writer put a stand-in. */
import { describe, expect, it } from "vitest";
import { createRecordSink } from "../../../src/cli/sinks/record-sink.ts";
import { createBatchedOutput } from "../../../src/cli/output.ts";
import type { CliOutput } from "../../../src/cli/io.ts";
import { makeEvent } from "../../../src/emitter.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { getOutputFormat } from "../../../src/output-formats.ts";

/** What `convert` writes for `events`, through a target that takes bytes (as stdout does) or only text (as test fakes do). */
async function convert(format: string, events: readonly AgentEvent[], bytes: boolean, sse = false): Promise<string> {
  const written: string[] = [];
  const target: CliOutput = bytes
    ? { isTTY: false, write: () => expect.unreachable(), writeBytes: (b) => void written.push(Buffer.from(b).toString("utf8")) }
    : { isTTY: false, write: (text) => void written.push(text) };
  const output = createBatchedOutput(target);
  const sink = createRecordSink(getOutputFormat(format), { sse, coalesce: "none", finalSummary: false }, output);
  for (const event of events) {
    sink.event(event, "input");
    await output.flush();
  }
  await sink.end([]);
  await output.flush();
  return written.join("");
}

describe("createRecordSink --to agentstream", () => {
  // Long enough to be shared (8192 UTF-16 units), with what JSON.stringify escapes or leaves raw.
  const output = `${'配置 "quoted" back\\slash\ttab 👩‍💻 \u001b[32mok\u001b[0m \u2028 \ud800 line\n'.repeat(200)}end`;
  const events: AgentEvent[] = [
    makeEvent("tool.started", { seq: 0, toolCallId: "t1", name: "Bash", input: { command: "cat log" } }),
    makeEvent("tool.completed", {
      seq: 1,
      toolCallId: "t1",
      isError: false,
      output,
      result: { stdout: output, stderr: "", interrupted: false },
    }),
    makeEvent("tool.started", { seq: 2, toolCallId: "t2", name: "Bash", input: { command: "cat log" } }),
    makeEvent("tool.completed", { seq: 3, toolCallId: "t2", isError: false, output: `${output}!`, result: { stdout: output } }),
  ];

  it("writes the same text as the format's own writer, to a byte target and to a text target, NDJSON and SSE", async () => {
    for (const sse of [false, true]) {
      const writer = getOutputFormat("agentstream").create({ sse, coalesce: "none", finalSummary: false });
      const expected = events.map((event) => writer.write(event)).join("") + writer.end();
      expect(expected.length).toBeGreaterThan(4 * output.length);
      expect(await convert("agentstream", events, true, sse)).toBe(expected);
      expect(await convert("agentstream", events, false, sse)).toBe(expected);
    }
  });

  it("the lines parse back to the events' text, the long output in both fields", async () => {
    const lines = (await convert("agentstream", events, true)).trimEnd().split("\n");
    const completed = lines.map((line) => JSON.parse(line) as AgentEvent).filter((event) => event.type === "tool.completed");
    expect(completed.map((event) => [event.output, (event.result as { stdout: string }).stdout])).toEqual([
      [output, output],
      [`${output}!`, output],
    ]);
  });
});
