// When nothing useful can be shown: one line on stderr saying what was read and what to try, exit 4.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { createNdjsonParser } from "../../src/framing/ndjson/create-ndjson-parser.ts";
import type { Issue } from "../../src/errors.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";

/** An ELF-like header followed by bytes of every value: what `agentstream render < /bin/ls` reads. */
function binaryBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  bytes.set([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]);
  for (let i = 8; i < size; i++) bytes[i] = (i * 37) % 256;
  return bytes;
}

/** Latin-1 text read as UTF-8: every other byte invalid, no NUL. */
function mostlyInvalidUtf8(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = i % 2 === 0 ? 0xe9 : 0x61;
  return bytes;
}

function stderrLines(err: string): string[] {
  return err.split("\n").filter((line) => line !== "");
}

describe("input that gives nothing to show", () => {
  it.each([
    ["empty input", "", /^<stdin>: empty input: nothing to show; pipe an agent's output in/],
    ["blank lines only", "\n\n  \n", /^<stdin>: only 3 blank lines: nothing to show/],
    [
      "JSON no dialect claims",
      '{"hello":1}\n{"world":2}\n',
      /^<stdin>: no agent dialect recognised in 2 lines \(2 JSON records, 0 text lines, 0 invalid\); try --from <dialect> \(agentstream formats lists them\)$/m,
    ],
    [
      "plain text",
      "make: *** No rule to make target\n",
      /^<stdin>: no agent dialect recognised in 1 line \(0 JSON records, 1 text line, 0 invalid\); try --from <dialect>/,
    ],
  ])("%s: exit 4 and one line on stderr", async (_name, stdin, line) => {
    for (const command of ["render", "convert", "summary"]) {
      const io = fakeIo({ stdin });
      expect(await run([command], io)).toBe(4);
      expect(stderrLines(io.err())).toHaveLength(1);
      expect(io.err()).toMatch(line);
    }
  });

  it.each([
    ["binary (NUL bytes)", binaryBytes(200_000)],
    ["mostly invalid UTF-8", mostlyInvalidUtf8(200_000)],
  ])("%s: render prints nothing to stdout and one line to stderr, exit 4", async (_name, bytes) => {
    const io = fakeIo({ stdin: bytes });
    expect(await run(["render", "--mode", "full"], io)).toBe(4);
    expect(io.out()).toBe("");
    expect(stderrLines(io.err())).toEqual([
      "<stdin>: nothing read from 200000 bytes: the input is not text (NUL bytes or mostly invalid UTF-8 at the start); agent output is UTF-8 NDJSON (agentstream formats lists what can be read)",
    ]);
  });

  it("gzip input is said once, in the same line, exit 4", async () => {
    const io = fakeIo({ stdin: new Uint8Array([0x1f, 0x8b, 0x08, 0x00, 0x00]) });
    expect(await run(["summary"], io)).toBe(4);
    expect(stderrLines(io.err())).toEqual([
      expect.stringMatching(/^<stdin>: nothing read from 5 bytes: the input is gzip-compressed; decompress it first/),
    ]);
  });

  it("--from json reads any NDJSON without complaint (exit 0)", async () => {
    const io = fakeIo({ stdin: '{"hello":1}\n' });
    expect(await run(["convert", "--from", "json"], io)).toBe(0);
    expect(io.err()).toBe("");
  });

  it("-q keeps stderr silent but the status still says nothing was read", async () => {
    const io = fakeIo({ stdin: "" });
    expect(await run(["render", "-q"], io)).toBe(4);
    expect(io.err()).toBe("");
  });

  it("with several files, the unreadable one is named and the others are read", async () => {
    if (!hasShared) return;
    const capture = sharedPath("fixtures/claude", "archistrator_success_with_tools.jsonl");
    const io = fakeIo();
    expect(await run(["summary", "--json", capture, join(import.meta.dirname, "../fixtures/empty/empty.ndjson")], io)).toBe(4);
    expect(stderrLines(io.err())).toEqual([expect.stringMatching(/empty\.ndjson: empty input: nothing to show/)]);
    expect(JSON.parse(io.out())[0].dialect).toBe("claude");
  });

  it("render with a terminal on stdin says it is waiting for input", async () => {
    const io = fakeIo({ stdin: "", stdinTTY: true });
    await run(["render"], io);
    expect(io.err()).toMatch(/^agentstream: reading agent output from the terminal; pipe it in or name a file \(Ctrl-D ends the input\)\n/);
  });

  it("the line-too-long hint names the CLI flag, not the library option", async () => {
    const io = fakeIo({ stdin: `{"type":"x","pad":"${"a".repeat(100)}"}\n` });
    await run(["convert", "--from", "json", "--max-line-bytes", "20"], io);
    expect(io.err()).toMatch(/line-too-long: .*raise --max-line-bytes to keep it/);
    expect(io.err()).not.toMatch(/maxLineBytes/);
  });
});

describe("the framer rejects binary input, whatever the chunking", () => {
  const read = (chunks: Uint8Array[]): Issue[] => {
    const issues: Issue[] = [];
    const parser = createNdjsonParser({ onRecord: () => {}, onIssue: (issue) => issues.push(issue) });
    for (const chunk of chunks) parser.feed(chunk);
    parser.end();
    return issues;
  };
  const bytes = binaryBytes(4000);
  it.each([1, 2, 7, 100, 4000])("chunks of %i bytes", (size) => {
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
    expect(read(chunks).map((issue) => [issue.code, issue.severity])).toEqual([["binary", "fatal"]]);
  });

  it("a JSON line with a raw NUL stays an invalid-json record, not a binary input", () => {
    const issues = read([new TextEncoder().encode('{"a":"x\u0000y"}\n{"b":1}\n')]);
    expect(issues.map((issue) => issue.code)).toEqual(["invalid-json"]);
  });
});

describe("usage errors are one line in our words, with the command's help hint", () => {
  it.each([
    [["render", "--foo"], "agentstream render: unknown option --foo (see agentstream render --help)"],
    [["summary", "-z"], "agentstream summary: unknown option -z (see agentstream summary --help)"],
    [["render", "--from"], "agentstream render: --from needs a value (see agentstream render --help)"],
    [["convert", "--strict=yes"], "agentstream convert: --strict takes no value (see agentstream convert --help)"],
    [
      ["render", "--width", "3"],
      'agentstream render: --width takes a whole number of columns, at least 20, not "3" (see agentstream render --help)',
    ],
    [["rendr"], 'agentstream: unknown command "rendr"; did you mean "render"? (see agentstream --help)'],
  ])("%j", async (argv, line) => {
    const io = fakeIo();
    expect(await run(argv, io)).toBe(2);
    expect(io.err()).toBe(`${line}\n`);
  });
});
