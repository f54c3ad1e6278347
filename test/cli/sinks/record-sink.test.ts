/** The record sink: `--to agentstream` splices the held strings its reader keeps (framing/held-strings.ts), byte for byte the text of a full read. */
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { createRecordSink } from "../../../src/cli/sinks/record-sink.ts";
import { createBatchedOutput } from "../../../src/cli/output.ts";
import type { CliOutput } from "../../../src/cli/io.ts";
import { makeEvent } from "../../../src/emitter.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { getOutputFormat } from "../../../src/output-formats.ts";
import type { SkimOptions } from "../../../src/framing/ndjson/create-ndjson-parser.ts";
import { HeldStrings, releaseHeld, withHeldTexts } from "../../../src/framing/held-strings.ts";
import { createEventReader, createEventReaderFor, type ReadOptions } from "../../../src/pipeline/create-event-reader.ts";
import { mayHoldSecretRaw } from "../../../src/stages/redact/redact-text.ts";
import { claude } from "../../../src/agents/claude/stream-json.ts";
import type { Dialect } from "../../../src/dialect/dialect.ts";
import { listCaptures } from "../../helpers/shared.ts";

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

/** `convert --to agentstream` with every long tool output the skim keys reach offered to be held. */
const FORCED_RAW: SkimOptions = {
  keys: new Set(["stdout", "stderr", "aggregated_output", "formatted_output"]),
  toolResultKeys: new Set(["content"]),
  minBytes: 1,
  minLineBytes: 0,
};

/** Read options, and whether the reader holds strings for the sink (as `convert --to agentstream` does). */
type ConvertOptions = ReadOptions & { readonly hold?: boolean; readonly skim?: SkimOptions };

/** The held strings of the last `convertInput` that held some (tests check that nothing is left held). */
let lastHeld: HeldStrings | undefined;
const heldNow = (): number => lastHeld?.size ?? 0;

/** The bytes `convert --to agentstream` writes for `input` read with `options`, fed in chunks of `chunk` bytes. */
async function convertInput(input: Uint8Array, { hold, skim, ...options }: ConvertOptions, sse: boolean, chunk: number): Promise<string> {
  const written: Buffer[] = [];
  const target: CliOutput = { isTTY: false, write: () => expect.unreachable(), writeBytes: (b) => void written.push(Buffer.from(b)) };
  const output = createBatchedOutput(target);
  const sink = createRecordSink(getOutputFormat("agentstream"), { sse, coalesce: "none", finalSummary: false }, output);
  const onEvent = (event: AgentEvent): void => sink.event(event, "input");
  const held = sink.heldStrings as HeldStrings;
  if (hold === true) lastHeld = held;
  const reader = hold === true ? createEventReaderFor({ onEvent }, options, { held, skim }) : createEventReader({ onEvent }, options);
  for (let at = 0; at < input.length; at += chunk) reader.feed(input.subarray(at, at + chunk));
  reader.end();
  await sink.end([]);
  await output.flush();
  return Buffer.concat(written).toString("utf8");
}

/** Compares a full read's output with a holding read's (every string the skim keys reach offered); returns the strings held. */
async function compareRaw(input: Uint8Array, redact: boolean, chunks: readonly number[] = [7, input.length || 1]): Promise<number> {
  let heldStrings = 0;
  const hold = vi.spyOn(HeldStrings.prototype, "hold");
  try {
    for (const sse of [false, true]) {
      const expected = await convertInput(input, { redact }, sse, input.length || 1);
      for (const chunk of chunks) {
        hold.mockClear();
        const skim = redact ? { ...FORCED_RAW, keep: mayHoldSecretRaw } : FORCED_RAW;
        const actual = await convertInput(input, { redact, hold: true, skim }, sse, chunk);
        expect(actual).toBe(expected);
        expect(actual).not.toContain("agentstream-held-"); // no placeholder reaches the output
        expect(heldNow()).toBe(0); // every held string was written or let go of
        heldStrings += hold.mock.calls.length;
      }
    }
  } finally {
    hold.mockRestore();
  }
  return heldStrings;
}

const captures = listCaptures();

describe.skipIf(captures.length === 0)("convert --to agentstream with held strings: the same bytes on every real capture", () => {
  let held = 0;
  it.each(captures.map(([dialect, path]) => [`${dialect}/${path.split("/").pop()}`, path] as const))("%s", async (_name, path) => {
    const input = readFileSync(path);
    held += await compareRaw(input, true);
    held += await compareRaw(input, false);
  });

  it("holds strings on the captures (the test is not vacuous)", () => {
    expect(held).toBeGreaterThan(100);
  });

  it.each(captures.map(([dialect, path]) => [`${dialect}/${path.split("/").pop()}`, path] as const))(
    "%s: events resolved from placeholders are the events of a full read",
    (_name, path) => {
      const input = readFileSync(path);
      const full: AgentEvent[] = [];
      createEventReaderOn(input, { redact: true }, (event) => full.push(event));
      const raw: AgentEvent[] = [];
      const held = new HeldStrings();
      const reader = createEventReaderFor(
        {
          onEvent(event) {
            raw.push(withHeldTexts(event, held));
            releaseHeld(event, held);
          },
        },
        { redact: true },
        { held, skim: { ...FORCED_RAW, keep: mayHoldSecretRaw } },
      );
      reader.feed(input);
      reader.end();
      expect(raw).toEqual(full);
      expect(held.size).toBe(0);
    },
  );
});

function createEventReaderOn(input: Uint8Array, options: ReadOptions, onEvent: (event: AgentEvent) => void): void {
  const reader = createEventReader({ onEvent }, options);
  reader.feed(input);
  reader.end();
}

describe("convert --to agentstream with held strings: synthetic long outputs", () => {
  const head =
    '{"type":"system","subtype":"init","session_id":"s1","model":"m","tools":["Bash"]}\n' +
    '{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat log"}}]},"session_id":"s1"}\n';
  /** A Claude tool result whose content is the JSON string text `json` (no quotes), repeated in tool_use_result.stdout. */
  const result = (json: string, isError = false): string =>
    `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"${json}","is_error":${isError}}]},"session_id":"s1","tool_use_result":{"stdout":"${json}","stderr":"","interrupted":false}}\n`;
  const tail = '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s1"}\n';
  const session = (json: string, isError = false): Uint8Array => new TextEncoder().encode(head + result(json, isError) + tail);
  const long = (text: string): string => text.repeat(Math.ceil(9000 / text.length));
  const options = { redact: false, hold: true } as const;

  it("holds a canonical output of 8 KiB or more (and its repeat in stdout) at the reader's own thresholds", async () => {
    for (const json of [long('配置 \\"q\\" \\\\ \\n \\u001b[0m 👩‍💻 '), long("raw U+2028 \u2028 and U+2029 \u2029 ")]) {
      const input = session(json);
      const hold = vi.spyOn(HeldStrings.prototype, "hold");
      const expected = await convertInput(input, { redact: true }, false, 4096);
      expect(await convertInput(input, { ...options, redact: true }, false, 4096)).toBe(expected);
      expect(hold.mock.calls.length).toBe(2);
      hold.mockRestore();
      expect(heldNow()).toBe(0);
    }
  });

  it.each([
    ["an escaped printable character (\\/ and \\u0041)", long("a\\/b \\u0041 ")],
    ["uppercase hex", long("\\u001B[0m ")],
    ["an escaped non-ASCII character", long("caf\\u00e9 ")],
    ["an escaped U+2028", long("x\\u2028y ")],
    ["a lone surrogate, escaped", long("x\\ud800y ")],
    ["a short form written the long way", long("x\\u000ay ")],
  ])("reads %s in full, with the same output", async (_name, json) => {
    const input = session(json);
    const hold = vi.spyOn(HeldStrings.prototype, "hold");
    expect(await convertInput(input, options, false, 4096)).toBe(await convertInput(input, { redact: false }, false, 4096));
    expect(hold.mock.calls.length).toBe(0);
    hold.mockRestore();
  });

  it("reads invalid UTF-8 in full, as before (replaced, reported)", async () => {
    const text = head + result(long("ok ")) + tail;
    const bytes = new TextEncoder().encode(text);
    const at = text.indexOf("ok ok") + 1;
    const input = new Uint8Array([...bytes.subarray(0, at), 0xff, ...bytes.subarray(at + 1)]);
    const hold = vi.spyOn(HeldStrings.prototype, "hold");
    expect(await convertInput(input, options, false, 4096)).toBe(await convertInput(input, { redact: false }, false, 4096));
    expect(hold.mock.calls.length).toBe(0);
    hold.mockRestore();
  });

  it("redacts a secret inside a long output exactly as before", async () => {
    const json = `${long("log line ")}token ghp_${"A1b2".repeat(9)} ${long("more ")}`;
    const input = session(json);
    const hold = vi.spyOn(HeldStrings.prototype, "hold");
    const actual = await convertInput(input, { ...options, redact: true }, false, 4096);
    expect(actual).toBe(await convertInput(input, { redact: true }, false, 4096));
    expect(actual).toContain("[REDACTED:");
    expect(hold.mock.calls.length).toBe(0);
    hold.mockRestore();
  });

  it("resolves a placeholder where the Claude decoder reads the text (a failed command's exit code)", async () => {
    const input = session(`Exit code 3\\n${long("stderr line\\n")}`, true);
    const actual = await convertInput(input, options, false, 4096);
    expect(actual).toBe(await convertInput(input, { redact: false }, false, 4096));
    expect(actual).toContain('"exitCode":3');
    expect(heldNow()).toBe(0);
  });

  it("holds a Codex command's long aggregated_output; its progress (item.updated) is read in full", async () => {
    // Long enough for its line alone to be skimmed (16 KiB).
    const json = long("line \\u001b[1mbold\\u001b[0m 配置 \\n").repeat(2);
    const command = (type: string, output: string, status: string): string =>
      `{"type":"${type}","item":{"id":"item_1","type":"command_execution","command":"bash -lc make","aggregated_output":"${output}","exit_code":${status === "completed" ? 0 : null},"status":"${status}"}}\n`;
    const text =
      '{"type":"thread.started","thread_id":"t1"}\n{"type":"turn.started"}\n' +
      command("item.started", "", "in_progress") +
      command("item.updated", json, "in_progress") +
      command("item.completed", `${json}done`, "completed") +
      '{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}\n';
    const input = new TextEncoder().encode(text);
    const hold = vi.spyOn(HeldStrings.prototype, "hold");
    const actual = await convertInput(input, { redact: true, hold: true, dialect: "codex" }, false, 4096);
    expect(actual).toBe(await convertInput(input, { redact: true, dialect: "codex" }, false, 4096));
    expect(actual).toContain('"type":"tool.progress"');
    expect(hold.mock.calls.length).toBe(2);
    hold.mockRestore();
    expect(heldNow()).toBe(0);
  });

  it("never lets a placeholder out as text where a decoder serialized or joined it (a tool_result whose content is an object)", async () => {
    const json = long("out \\u001b[0m 配置 ").repeat(2);
    const line = `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":{"stdout":"${json}","note":"x"},"is_error":false}]},"session_id":"s1"}\n`;
    const input = new TextEncoder().encode(head + line + tail);
    const hold = vi.spyOn(HeldStrings.prototype, "hold");
    const actual = await convertInput(input, { ...options, redact: true }, false, 4096);
    expect(actual).toBe(await convertInput(input, { redact: true }, false, 4096));
    expect(actual).not.toContain("agentstream-held");
    expect(hold.mock.calls.length).toBe(1);
    hold.mockRestore();
    expect(heldNow()).toBe(0);
  });

  it("splices a placeholder wherever the decoder put it (a tool_result without its tool_use_id becomes a notice quoting it)", async () => {
    const json = long("orphan \\u001b[0m 配置 ").repeat(2);
    const line = `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"${json}"}]},"session_id":"s1"}\n`;
    const input = new TextEncoder().encode(head + line + tail);
    const hold = vi.spyOn(HeldStrings.prototype, "hold");
    const actual = await convertInput(input, { ...options, redact: true }, false, 4096);
    expect(actual).toBe(await convertInput(input, { redact: true }, false, 4096));
    expect(actual).toContain('"type":"notice"');
    expect(hold.mock.calls.length).toBe(1);
    hold.mockRestore();
    expect(heldNow()).toBe(0);
  });
});

describe("a dialect says for itself which records may carry held strings (Dialect.passesHeldStrings)", () => {
  const json = "line \\u001b[0m 配置 \\n".repeat(1200);
  const text =
    '{"type":"system","subtype":"init","session_id":"s1","model":"m","tools":["Bash"]}\n' +
    '{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat log"}}]},"session_id":"s1"}\n' +
    `{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"${json}","is_error":false}]},"session_id":"s1"}\n`;
  const outputsOf = (dialect: Dialect): { placeholders: number; outputs: (string | undefined)[] } => {
    const held = new HeldStrings();
    let placeholders = 0;
    const outputs: (string | undefined)[] = [];
    const reader = createEventReaderFor(
      {
        onEvent(event) {
          if (event.type !== "tool.completed") return;
          if (held.keyOf(event.output) !== undefined) placeholders++;
          const read = withHeldTexts(event, held);
          outputs.push(read.type === "tool.completed" ? read.output : undefined);
          releaseHeld(event, held);
        },
      },
      { dialect, redact: false },
      { held },
    );
    reader.feed(new TextEncoder().encode(text));
    reader.end();
    expect(held.size).toBe(0);
    return { placeholders, outputs };
  };

  it("a dialect that declares it gets the placeholder, whatever its name; one that does not gets the text", () => {
    const renamed = outputsOf({ ...claude, name: "claude-fork" });
    const { passesHeldStrings: _, ...silentClaude } = claude;
    const silent = outputsOf({ ...silentClaude, name: "claude-silent" });
    expect(renamed.placeholders).toBe(1);
    expect(silent.placeholders).toBe(0);
    expect(renamed.outputs).toEqual(silent.outputs);
    expect(silent.outputs[0]).toContain("配置");
  });

  it("two writers' readers hold their strings apart (no registry shared by the process)", () => {
    const a = new HeldStrings();
    const b = new HeldStrings();
    const placeholder = a.hold(new TextEncoder().encode('"x"'));
    expect(b.keyOf(placeholder)).toBeUndefined();
    expect(b.size).toBe(0);
    expect(a.text(placeholder)).toBe("x");
  });
});
