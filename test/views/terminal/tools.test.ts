/**
 * A long tool output's lines (src/views/terminal/tools.ts `outputLines`): only the lines the view shows
 * are found, by counting line breaks, and they must be those the split of the whole output gave.
 */
import { fc, test } from "../../helpers/property.ts";
import { describe, expect } from "vitest";
import { sanitizeForTerminal } from "../../../src/views/shared/sanitize.ts";
import {
  createRenderState,
  MIN_HIDDEN,
  NORMAL_HEAD,
  NORMAL_TAIL,
  type RenderState,
  VERBOSE_HEAD,
  VERBOSE_TAIL,
} from "../../../src/views/terminal/state.ts";
import { outputLines, trimBlankEnds } from "../../../src/views/terminal/tools.ts";

/** outputLines as it was: the whole output split, its shown lines sanitised, the others kept as "". */
function splitLines(r: RenderState, text: string): string[] {
  const head = r.verbose ? VERBOSE_HEAD : NORMAL_HEAD;
  const tail = r.verbose ? VERBOSE_TAIL : NORMAL_TAIL;
  if (r.uncut || text.length < 4096) return trimBlankEnds(sanitizeForTerminal(text, r.richText).split("\n"));
  const raw = trimBlankEnds(text.split("\n"));
  if (raw.length - head - tail < MIN_HIDDEN) return trimBlankEnds(sanitizeForTerminal(raw.join("\n"), r.richText).split("\n"));
  const clean = (line: string): string => sanitizeForTerminal(line.endsWith("\r") ? line.slice(0, -1) : line, r.richText);
  return raw.map((line, i) => (i < head || i >= raw.length - tail ? clean(line) : ""));
}

describe("outputLines", () => {
  const line = fc.oneof(
    fc.constantFrom("", " ", "\t", "\r", " \r", "\u00a0", "ok", "\x1b[32mok\x1b[0m line", "x".repeat(300), "日本 🙂", "a\rb"),
    fc.string({ maxLength: 12 }),
  );
  // Up to a few hundred lines, some long, so that outputs fall on both sides of 4096 characters and of the cut.
  const output = fc
    .tuple(fc.array(line, { maxLength: 60 }), fc.nat(400), fc.array(line, { maxLength: 60 }), fc.boolean())
    .map(([first, blanks, last, long]) => [...first, ...new Array<string>(blanks).fill(long ? "y".repeat(40) : ""), ...last].join("\n"));
  const states = (["normal", "verbose", "full"] as const).map((verbosity) =>
    createRenderState({ write: () => {}, mode: "full", verbosity, width: 80, links: false, keepColors: verbosity === "verbose" }),
  );

  test.prop([output, fc.constantFrom(...states)], { numRuns: 500 })("finds the lines the split of the whole output gives", (text, r) => {
    const all = splitLines(r, text);
    const { lines, count } = outputLines(r, text);
    expect(count).toBe(all.length);
    const head = r.verbose ? VERBOSE_HEAD : NORMAL_HEAD;
    const tail = r.verbose ? VERBOSE_TAIL : NORMAL_TAIL;
    if (lines.length === count) expect(lines).toEqual(all);
    else expect(lines).toEqual([...all.slice(0, head), ...all.slice(all.length - tail)]);
  });
});
