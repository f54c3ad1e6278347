/**
 * The framing layer: records → NDJSON, SSE or json-seq text, through the one stringifyRecord.
 * Every format's records can be framed every way; SSE output decodes back to the NDJSON records.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createFramer } from "../../src/framing/framer.ts";
import { createSseDecoder, type SseEvent } from "../../src/framing/create-sse-decoder.ts";
import { LosslessInteger } from "../../src/model/lossless-integer.ts";
import { formats } from "../../src/formats/index.ts";
import { createFormatWriter } from "../../src/formats/writer.ts";
import type { AgentEvent } from "../../src/model/events.ts";
import { readFile } from "../helpers/read.ts";
import { listCaptures } from "../helpers/shared.ts";

function write(events: readonly AgentEvent[], format: (typeof formats)[number], sse: boolean): string {
  const writer = createFormatWriter(format, { sse });
  let out = "";
  for (const event of events) out += writer.write(event);
  return out + writer.end();
}

function decodeSse(text: string): { events: SseEvent[]; comments: string[] } {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  const decoder = createSseDecoder({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
  decoder.feed(text);
  decoder.end();
  return { events, comments };
}

describe("createFramer", () => {
  it("ndjson: one JSON text per line", () => {
    const framer = createFramer("ndjson");
    expect(framer.frame({ type: "a", text: "x\ny" })).toBe('{"type":"a","text":"x\\ny"}\n');
    expect(framer.end()).toBe("");
  });

  it("json-seq: RS before each JSON text, LF after (RFC 7464)", () => {
    expect(createFramer("json-seq").frame({ a: 1 })).toBe('\u001e{"a":1}\n');
  });

  it("sse: id then data, a blank line after each event", () => {
    const framer = createFramer("sse");
    expect(framer.frame({ a: 1 }, 0)).toBe('id: 0\ndata: {"a":1}\n\n');
    expect(framer.frame({ a: 2 })).toBe('data: {"a":2}\n\n');
    expect(framer.end()).toBe("");
  });

  it("sse: a format's preamble before the first frame only, its done frame only after frames, ids off on request", () => {
    const framer = createFramer("sse", { sse: { preamble: ": hello\n", done: "[DONE]", ids: false } });
    expect(framer.frame({ a: 1 }, 0)).toBe(': hello\ndata: {"a":1}\n\n');
    expect(framer.frame({ a: 2 }, 1)).toBe('data: {"a":2}\n\n');
    expect(framer.end()).toBe("data: [DONE]\n\n");
    expect(createFramer("sse", { sse: { done: "[DONE]" } }).end()).toBe("");
  });

  it("every framing writes big integers digit for digit", () => {
    const record = { id: new LosslessInteger("1104763548210798038") };
    for (const framing of ["ndjson", "sse", "json-seq"] as const)
      expect(createFramer(framing).frame(record, 0)).toContain(":1104763548210798038}");
  });
});

const captures = listCaptures()
  .filter(([dialect]) => dialect === "claude" || dialect === "codex")
  .slice(0, 4);

describe.skipIf(captures.length === 0)("--sse works for every format (real captures)", () => {
  // A record with no time of its own before any time is known is stamped when it is written (docs/events.md, Times):
  // one clock for both writes, so the two texts can be compared.
  beforeAll(() => {
    vi.spyOn(Date, "now").mockReturnValue(Date.parse("2026-12-01T00:00:00.000Z"));
  });
  afterAll(() => {
    vi.restoreAllMocks();
  });
  for (const [dialect, path] of captures) {
    const { events } = readFile(path);
    for (const format of formats.filter((f) => f.encoder !== undefined)) {
      it(`${dialect}/${path.split("/").pop()} → ${format.name}: the SSE data are the NDJSON records`, () => {
        const lines = write(events, format, false)
          .split("\n")
          .filter((l) => l !== "");
        const { events: sse } = decodeSse(write(events, format, true));
        const data = sse.map((e) => e.data).filter((d) => d !== "[DONE]");
        expect(lines.length).toBeGreaterThan(0);
        expect(data).toEqual(lines);
        if (format.sse?.ids === false) expect(sse.every((e) => e.id === undefined)).toBe(true);
        else expect(sse.map((e) => e.id)).toEqual(lines.map((_, i) => String(i)));
      });
    }
  }
});

describe("a format's text writer", () => {
  it("codex-thread --final-summary: the trailer follows the framed stream, pretty-printed", () => {
    const codexThread = formats.find((f) => f.name === "codex-thread");
    if (codexThread === undefined) throw new Error("codex-thread");
    const writer = createFormatWriter(codexThread, { finalSummary: true });
    const out = writer.end();
    const [first] = out.split("\n");
    expect(JSON.parse(first ?? "")).toMatchObject({ type: "thread.started" });
    expect(out).toMatch(/\n\{\n {2}"/);
  });

  it("throws a usage error for a format it cannot write", () => {
    expect(() => createFormatWriter({ name: "x", description: "", mediaType: "text/plain" })).toThrow(/does not write/);
  });
});
