/** Wrapping a line to the terminal's width: a word longer than a row is cut over as many rows as it needs. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { displayWidth, ESCAPE, splitAtWidth, visibleWidth } from "../../../src/views/shared/width.ts";
import { wrapLine } from "../../../src/views/shared/wrap.ts";

/** The rule as first written (each cut re-measures what is left of the word): the oracle for the one that measures once. */
function wrapByRemeasuring(text: string, width: number, start: number, hang: string): string {
  if (start + visibleWidth(text) <= width) return text;
  const lead = /^[ \t]*/.exec(text.replace(ESCAPE, ""))?.[0] ?? "";
  const hangText = hang + (lead.length < (width - hang.length) / 2 ? " ".repeat(lead.length) : "");
  const rowStart = visibleWidth(hangText);
  const out: string[] = [];
  let col = start;
  let spaces = "";
  let rowHasWord = false;
  for (const token of text.match(/\s+|\S+/g) ?? []) {
    if (/^\s/.test(token)) {
      spaces += token;
      continue;
    }
    let word = token;
    const gap = rowHasWord || col > rowStart ? visibleWidth(spaces) : displayWidth(spaces);
    if (rowHasWord && col + gap + visibleWidth(word) > width) {
      out.push(`\n${hangText}`);
      col = rowStart;
      spaces = "";
    } else if (spaces !== "") {
      out.push(spaces);
      col += gap;
      spaces = "";
    }
    while (word !== "" && col + visibleWidth(word) > width) {
      const [head, tail] = splitAtWidth(word, Math.max(width - col, 1));
      out.push(head, `\n${hangText}`);
      col = rowStart;
      word = tail;
    }
    if (word !== "") {
      out.push(word);
      col += visibleWidth(word);
      rowHasWord = true;
    }
  }
  return out.join("");
}

const pieces = ["a", "bc", " ", "  ", "\t", "配", "👩‍💻", "\u0301", "\x1b[2m", "\x1b[0m", "\x1b]8;;https://x.y\x1b\\", "\x1b", "é"];

describe("wrapLine", () => {
  it("cuts as the rule that re-measures each cut does, for any text of words, spaces, wide characters and escapes", () => {
    const text = fc.array(fc.constantFrom(...pieces), { maxLength: 80 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(
        text,
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 12 }),
        fc.constantFrom("", "  ", "│ "),
        (t, width, start, hang) => {
          expect(wrapLine(t, width, start, hang)).toBe(wrapByRemeasuring(t, width, start, hang));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("cuts a word of a million characters into rows of the width (a base64 image shown with --full)", () => {
    const word = `\x1b[2m${"iVBORw0KGgo".repeat(100_000)}\x1b[0m`;
    const rows = wrapLine(word, 90, 4, "  ").split("\n");
    expect(rows.length).toBe(Math.ceil((1_100_000 + 4 - 90) / 88) + 1);
    expect(rows.slice(1, -1).every((row) => visibleWidth(row) === 90)).toBe(true);
  });
});
