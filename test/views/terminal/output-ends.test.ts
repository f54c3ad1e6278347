// Reading long tool outputs as their ends only (`toolOutputEnds`, `render`) changes nothing the terminal view prints:
// synthetic outputs of every shape the cut must respect, at each verbosity and several widths, and the bench's
// generated corpus shape (many lines, one-line base64), each compared with a full read.
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/model/events.ts";
import { createEventReaderFor } from "../../../src/pipeline/create-event-reader.ts";
import type { Verbosity } from "../../../src/views/shared/types.ts";
import { createTerminalRenderer } from "../../../src/views/terminal/create-terminal-renderer.ts";
import { outputEnds } from "../../../src/views/terminal/state.ts";

/** A Claude stream whose one tool result (`content`, and `stdout` repeated as Claude does) is `output`, written by JSON.stringify. */
function claudeStream(output: string, rawText?: string): Uint8Array {
  const text = rawText ?? JSON.stringify(output).slice(1, -1);
  const lines = [
    `{"type":"system","subtype":"init","session_id":"s","tools":[],"model":"m","cwd":"/w"}`,
    `{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"make"}}]},"session_id":"s","parent_tool_use_id":null}`,
    `{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"${text}","is_error":false}]},"session_id":"s","parent_tool_use_id":null,"tool_use_result":{"stdout":"${text}","stderr":"","interrupted":false}}`,
    `{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done","session_id":"s"}`,
  ];
  return new TextEncoder().encode(`${lines.join("\n")}\n`);
}

/** What the view prints of `input`, and the tool output the events carried. */
function render(input: Uint8Array, verbosity: Verbosity, width: number, ends: boolean): { text: string; output: string } {
  let text = "";
  let output = "";
  const toolOutputEnds = ends ? outputEnds(verbosity, width) : undefined;
  const renderer = createTerminalRenderer({
    write: (t) => {
      text += t;
    },
    mode: "basic",
    width,
    verbosity,
    ...(toolOutputEnds === undefined ? {} : { cutMarker: toolOutputEnds.marker }),
  });
  const reader = createEventReaderFor(
    {
      onEvent(event: AgentEvent) {
        if (event.type === "tool.completed") output = event.output ?? "";
        renderer.render(event);
      },
    },
    { redact: true },
    { toolOutputEnds },
  );
  for (let at = 0; at < input.length; at += 65536) reader.feed(input.subarray(at, at + 65536));
  reader.end();
  renderer.end();
  return { text, output };
}

const SETTINGS: [Verbosity, number][] = [
  ["normal", 80],
  ["verbose", 120],
  ["quiet", 40],
  ["normal", 300],
];

/** Compares the view's output with and without the cut; true when the cut was made (the output read differs). */
function same(input: Uint8Array): boolean {
  let cut = false;
  for (const [verbosity, width] of SETTINGS) {
    const full = render(input, verbosity, width, false);
    const ends = render(input, verbosity, width, true);
    expect(ends.text, `${verbosity} ${width}`).toBe(full.text);
    if (ends.output !== full.output) cut = true;
  }
  return cut;
}

const line = (i: number) => `line ${i}: ${"x".repeat(i % 90)} é 日本 ${i % 7 === 0 ? "\t tabbed" : ""}`;
const many = (n: number, make = line) => Array.from({ length: n }, (_, i) => make(i));

describe("a cut output says how much was cut", () => {
  it("keeps the line count, marks where the cut starts, and is not padded", () => {
    const output = many(3000).join("\n");
    const { output: read } = render(claudeStream(output), "normal", 80, true);
    const marker = (outputEnds("normal", 80) as { marker: string }).marker.slice(0, "\u0000agentstream-cut-".length);
    expect(read.length).toBeLessThan(output.length);
    expect(read.split("\n").length).toBe(output.split("\n").length);
    const cutLines = read.split("\n").filter((l) => l.startsWith(marker));
    expect(cutLines.length).toBe(1);
    expect(read).not.toMatch(/ {64}/);
  });
});

describe("tool outputs read as their ends: the view prints the same", () => {
  it.each([
    ["plain lines", many(3000).join("\n")],
    [
      "leading and trailing blank lines, Unicode spaces and CRs among them",
      ["", " ", "\u3000", "\t", "\r", ...many(3000), " ", "\u00a0", "", "\r"].join("\n"),
    ],
    ["CRLF lines", many(3000).join("\r\n")],
    ["escape sequences at the ends", ["\x1b[32mok\x1b[0m", ...many(3000), "\x1b]0;title\x07", "\x1b[1mbold"].join("\n")],
    ["lines ending in backslashes (escaped as \\\\)", many(3000, (i) => `path\\dir${"\\".repeat(i % 4)}`).join("\n")],
    [
      "a backslash then n, not a line break (C:\\new), at the ends",
      ["C:\\new\\next\\", ...many(3000), "C:\\n", "\\n\\n\\", "end\\"].join("\n"),
    ],
    ["a line break on every line's end", `${many(3000).join("\n")}\n`],
    ["long lines at the ends", [`${"w".repeat(30000)}`, ...many(1000), `${"z".repeat(30000)}`].join("\n")],
  ])("%s", (_about, output) => {
    expect(same(claudeStream(output))).toBe(true);
  });

  it("a one-line base64 image: only its start is read", () => {
    const base64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk".repeat(20000);
    expect(same(claudeStream(base64))).toBe(true);
  });

  it("line breaks written as \\u000a count as line breaks", () => {
    const raw = many(2000)
      .map((l) => JSON.stringify(l).slice(1, -1))
      .join("\\u000a");
    expect(same(claudeStream("", raw))).toBe(true);
  });

  it.each([
    ["too few lines to hide any", many(10).join("\n").padEnd(40000, "y")],
    ["blank lines all through", `a\n${"\n".repeat(30000)}b`],
    ["a one-line output starting with spaces", `   ${"a".repeat(40000)}`],
    ["a one-line output with an escape near its start", `a\\tb${"a".repeat(40000)}`],
  ])("kept whole or cut, the same: %s", (_about, output) => {
    same(claudeStream(output));
  });

  it("keeps an output with a secret whole, so it is redacted whole", () => {
    const token = `ghp_${"a".repeat(36)}`;
    const output = [...many(1500), `TOKEN=${token}`, ...many(1500)].join("\n");
    expect(same(claudeStream(output))).toBe(false);
    expect(render(claudeStream(output), "normal", 80, true).output).toContain("[REDACTED:github-token]");
  });
});
