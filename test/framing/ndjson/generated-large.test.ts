/**
 * The large hazard cases of ../shared/corpus/ndjson-hazards/MANIFEST.md, generated here (never
 * committed): huge lines, no newline for 64 MiB, a million nesting levels, a million records,
 * and an escape-heavy line whose decoded size differs from its wire size.
 */
import { describe, expect, it } from "vitest";
import type { Issue } from "../../../src/errors.ts";
import { createNdjsonParser, type NdjsonOptions } from "../../../src/framing/ndjson/create-ndjson-parser.ts";

const MiB = 1024 * 1024;
const encoder = new TextEncoder();

/** Feeds `parts` (each repeated `times`) in 64 KiB chunks, as a file stream would. */
function feedGenerated(parts: { text: string; times?: number }[], options: NdjsonOptions = {}) {
  let records = 0;
  const issues: Issue[] = [];
  const values: unknown[] = [];
  const parser = createNdjsonParser(
    {
      onRecord(record) {
        if (record.kind !== "json") return;
        records++;
        if (values.length < 8) values.push(record.value);
      },
      onIssue: (issue) => issues.push(issue),
    },
    { framing: "ndjson", ...options },
  );
  let peakPending = 0;
  for (const { text, times = 1 } of parts) {
    const bytes = encoder.encode(text);
    for (let n = 0; n < times; n++) {
      for (let i = 0; i < bytes.length; i += 64 * 1024) parser.feed(bytes.subarray(i, i + 64 * 1024));
      peakPending = Math.max(peakPending, process.memoryUsage().arrayBuffers);
    }
  }
  parser.end();
  return { records, issues: issues.map((i) => [i.code, i.line]), values, peakPending };
}

describe("generated large hazard cases", () => {
  it("huge-line-50MiB: skipped as line-too-long by default, kept with maxLineBytes 64 MiB; memory stays bounded", () => {
    const chunk = "x".repeat(MiB);
    const parts = [{ text: '{"big":"' }, { text: chunk, times: 50 }, { text: '"}\n{"after":true}\n' }];
    const capped = feedGenerated(parts);
    expect(capped.records).toBe(1);
    expect(capped.values).toEqual([{ after: true }]);
    expect(capped.issues).toEqual([["line-too-long", 1]]);
    // The discarded line is not held: live array buffers stay well under the 48 MiB the manifest allows.
    expect(capped.peakPending).toBeLessThan(48 * MiB);
    const raised = feedGenerated(parts, { maxLineBytes: 64 * MiB });
    expect(raised.records).toBe(2);
    expect(raised.issues).toEqual([]);
  });

  it("no-newline-64MiB: discarded while streaming, the record after it is read", () => {
    const result = feedGenerated([{ text: "y".repeat(MiB), times: 64 }, { text: '\n{"ok":1}\n' }]);
    expect(result.records).toBe(1);
    expect(result.issues).toEqual([["line-too-long", 1]]);
  });

  it("nested-depth-1M: depth-exceeded, the next line is read, nothing recursive overflows", () => {
    const deep = `${"[".repeat(1_000_000)}${"]".repeat(1_000_000)}\n{"next":true}\n`;
    const result = feedGenerated([{ text: deep }], { maxLineBytes: 64 * MiB });
    expect(result.records).toBe(1);
    expect(result.issues).toEqual([["depth-exceeded", 1]]);
  });

  it("many-lines-1M: a million records, seq contiguous, none lost or reordered", () => {
    let expected = 0;
    let contiguous = true;
    const parser = createNdjsonParser({
      onRecord(record) {
        if (record.kind !== "json" || record.value.seq !== expected) contiguous = false;
        expected++;
      },
    });
    const batch: string[] = [];
    for (let i = 0; i < 1_000_000; i++) {
      batch.push(`{"seq":${i}}\n`);
      if (batch.length === 10_000) {
        parser.feed(batch.join(""));
        batch.length = 0;
      }
    }
    parser.end();
    expect(expected).toBe(1_000_000);
    expect(contiguous).toBe(true);
  });

  it("escape-heavy-20MiB: size limits apply to wire bytes, not decoded length", () => {
    const parts = [{ text: '{"s":"' }, { text: "\\u0000".repeat(100_000), times: 35 }, { text: '"}\n' }];
    const capped = feedGenerated(parts);
    expect(capped.records).toBe(0);
    expect(capped.issues).toEqual([["line-too-long", 1]]);
    const raised = feedGenerated(parts, { maxLineBytes: 64 * MiB });
    expect(raised.records).toBe(1);
    expect(raised.issues).toEqual([]);
  });
});
