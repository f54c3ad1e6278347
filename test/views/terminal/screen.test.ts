/**
 * The message line's layout (src/views/terminal/screen.ts): the plain-text path of `writeSegment`
 * (no tabs, no escape sequences), which measures each word once and emits a segment at once, lays text out exactly as the word loop
 * (`writeWords`) does, on every row, at every width, indent and mode.
 */
import { fc, test } from "../../helpers/property.ts";
import { describe, expect } from "vitest";
import type { AgentEvent } from "../../../src/model/events.ts";
import { messageState } from "../../../src/views/terminal/messages.ts";
import { flush, writePlainSegment, writeWords } from "../../../src/views/terminal/screen.ts";
import { createRenderState } from "../../../src/views/terminal/state.ts";

/** A segment without tabs or escape sequences: words (wide and narrow characters, some longer than a row) and spaces; or a line break. */
const piece = fc.oneof(
  fc.constantFrom(" ", "  ", "    ", "a", "word", "words,", "x".repeat(30), "y".repeat(130), "(paren)", "~!@#$%^&*"),
  fc.constantFrom("thế giới", "错误", "配置文件".repeat(12), "🙂", "👩‍💻", "🇻🇳", "e\u0301", "\u200b", "␛[31m"),
  fc.stringMatching(/^[\x20-\x7e]{0,12}$/),
);
/** Printable ASCII only, the path that finds a row's words at once: short and long words, runs of spaces. */
const asciiPiece = fc.oneof(
  fc.constantFrom(" ", "  ", "     ", "a", "word", "words,", "x".repeat(19), "y".repeat(79), "z".repeat(130)),
  fc.stringMatching(/^[\x20-\x7e]{0,24}$/),
);
const lines = (pieces: fc.Arbitrary<string>): fc.Arbitrary<string[]> =>
  fc.array(
    fc.oneof(
      { weight: 6, arbitrary: fc.array(pieces, { maxLength: 40 }).map((p) => p.join("")) },
      { weight: 1, arbitrary: fc.constant("\n") },
    ),
    { maxLength: 12 },
  );
const segments = fc.array(
  fc.oneof(
    { weight: 6, arbitrary: fc.array(piece, { maxLength: 12 }).map((p) => p.join("")) },
    { weight: 1, arbitrary: fc.constant("\n") },
  ),
  {
    maxLength: 12,
  },
);

function layOut(write: typeof writeWords, steps: readonly string[], width: number, depth: number, mode: "full" | "none"): string {
  let out = "";
  const r = createRenderState({ write: (t) => (out += t), mode, verbosity: "normal", width, links: false, keepColors: false });
  const started = { type: "message.started", seq: 0, v: 1, messageId: "m", role: "assistant", kind: "text" } as AgentEvent;
  const m = messageState(r, "m", "assistant", "text", started);
  (m as { depth: number }).depth = depth;
  for (const step of steps) {
    if (step === "\n") {
      // As appendText does at a line break.
      if (!m.fresh) m.newlines++;
      m.spaces = "";
      m.lineStart = true;
    } else if (step !== "") write(r, m, step);
  }
  flush(r);
  return `${out}|col=${m.col} hasWord=${m.rowHasWord} spaces=${JSON.stringify(m.spaces)} hang=${JSON.stringify(m.hang)}`;
}

describe("writeSegment's plain-text path", () => {
  test.prop(
    [segments, fc.integer({ min: 8, max: 120 }), fc.integer({ min: 0, max: 3 }), fc.constantFrom("full" as const, "none" as const)],
    {
      numRuns: 1000,
    },
  )("lays text out as the word loop does", (steps, width, depth, mode) => {
    expect(layOut(writePlainSegment, steps, width, depth, mode)).toBe(layOut(writeWords, steps, width, depth, mode));
  });

  test.prop(
    [
      lines(asciiPiece),
      fc.integer({ min: 8, max: 120 }),
      fc.integer({ min: 0, max: 3 }),
      fc.constantFrom("full" as const, "none" as const),
    ],
    {
      numRuns: 1000,
    },
  )("lays printable ASCII out as the word loop does (whole rows at once)", (steps, width, depth, mode) => {
    expect(layOut(writePlainSegment, steps, width, depth, mode)).toBe(layOut(writeWords, steps, width, depth, mode));
  });
});
