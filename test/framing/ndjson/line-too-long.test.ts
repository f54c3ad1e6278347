/**
 * A line past maxLineBytes is discarded while it streams, but the loss is not only on stderr: a
 * `notice` of kind `record-dropped` takes its place in the event stream (line, offset, bytes, code)
 * and the summary counts the records and bytes lost, under any chunking.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { run } from "../../../src/cli/run.ts";
import { createNdjsonParser, type InputRecord, type NdjsonOptions } from "../../../src/framing/ndjson/create-ndjson-parser.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { readAll } from "../../helpers/read.ts";
import { hasShared, noteSharedMissing, sharedPath } from "../../helpers/shared.ts";

const LIMIT = 200;
const big = `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"${"x".repeat(500)}"}]}}`;
const BIG_BYTES = Buffer.byteLength(big);

function frame(chunks: readonly (string | Uint8Array)[], options: NdjsonOptions): InputRecord[] {
  const records: InputRecord[] = [];
  const parser = createNdjsonParser({ onRecord: (r) => records.push(r) }, options);
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return records;
}

function chunked(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

describe("a discarded over-long line leaves a record-dropped stand-in", () => {
  const input = `{"a":1}\n${big}\n{"b":2}\n`;

  it.each([
    ["whole", [input]],
    ["1-byte chunks", chunked(input, 1)],
    ["7-byte chunks", chunked(input, 7)],
    ["64-byte chunks", chunked(input, 64)],
  ])("ndjson, %s: in order, with the full byte count", (_name, chunks) => {
    const records = frame(chunks, { framing: "ndjson", maxLineBytes: LIMIT });
    expect(records.map((r) => (r.kind === "json" ? "json" : r.dropped))).toEqual(["json", "line-too-long", "json"]);
    expect(records[1]).toMatchObject({ kind: "text", text: "", line: 2, offset: 8, length: BIG_BYTES, invalid: true });
  });

  it("a last line with no newline, and json-seq, are counted too", () => {
    const tail = frame([`{"a":1}\n${big}`], { framing: "ndjson", maxLineBytes: LIMIT });
    expect(tail.at(-1)).toMatchObject({ dropped: "line-too-long", line: 2, length: BIG_BYTES });
    const seq = frame([`\x1e{"a":1}\n\x1e${big}\n\x1e{"b":2}\n`], { framing: "json-seq", maxLineBytes: LIMIT });
    expect(seq.map((r) => (r.kind === "json" ? "json" : r.dropped))).toEqual(["json", "line-too-long", "json"]);
  });

  it("the reader puts a warning notice in its place and the summary counts records and bytes", () => {
    const claude = [
      '{"type":"system","subtype":"init","session_id":"s1","model":"m","tools":[]}',
      big.replace('"message"', '"session_id":"s1","message"'),
      '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s1"}',
    ].join("\n");
    const { events, summary, dialect } = readAll([claude], { maxLineBytes: LIMIT });
    expect(dialect).toBe("claude");
    const notices = events.filter((e) => e.type === "notice" && e.kind === "record-dropped");
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({
      level: "warning",
      source: { line: 2 },
      details: { code: "line-too-long", line: 2, bytes: Buffer.byteLength(claude.split("\n")[1] as string) },
    });
    expect(events.indexOf(notices[0] as (typeof events)[number])).toBeGreaterThan(events.findIndex((e) => e.type === "session.started"));
    expect(summary.records).toMatchObject({ tooLong: 1, tooLongBytes: Buffer.byteLength(claude.split("\n")[1] as string) });
  });

  it("convert --to agentstream carries the loss to its consumer, and the written stream still validates", async () => {
    const io = fakeIo({ stdin: input });
    expect(await run(["convert", "--from", "json", "--to", "agentstream", "--max-line-bytes", String(LIMIT)], io)).toBe(0);
    const events = io
      .out()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; kind?: string; details?: unknown });
    expect(events.filter((e) => e.type === "notice" && e.kind === "record-dropped").map((e) => e.details)).toEqual([
      { code: "line-too-long", line: 2, offset: 8, bytes: BIG_BYTES },
    ]);
    expect(io.err()).toMatch(/line-too-long/);
    const check = fakeIo({ stdin: io.out() });
    expect(await run(["validate"], check)).toBe(0);
  });
});

noteSharedMissing();
describe.skipIf(!hasShared)("a real capture with an over-long line", () => {
  it("the tool result that was too long is a record-dropped notice; the rest of the session is intact", () => {
    const path = sharedPath("fixtures/claude/archistrator_success_with_tools.jsonl");
    const lines = readFileSync(path, "utf8").split("\n");
    const longest = lines.reduce((best, line, i) => (line.length > (lines[best] as string).length ? i : best), 0);
    const limit = Math.max(...lines.filter((_, i) => i !== longest).map((l) => Buffer.byteLength(l))) + 1;
    const full = readAll([readFileSync(path)]);
    const cut = readAll([readFileSync(path)], { maxLineBytes: limit });
    expect(cut.summary.records).toMatchObject({ tooLong: 1, tooLongBytes: Buffer.byteLength(lines[longest] as string) });
    expect(cut.events.filter((e) => e.type === "notice" && e.kind === "record-dropped").map((e) => e.source?.line)).toEqual([longest + 1]);
    expect(cut.summary.finalText).toBe(full.summary.finalText);
  });
});
