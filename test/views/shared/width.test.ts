import { fc, test } from "../../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { codePointWidth, cutToWidth, displayWidth, splitAtWidth, visibleWidth } from "../../../src/views/shared/width.ts";

/** The widths as the rule gives them, code point by code point (what the remembered widths must equal). */
function ruleWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += codePointWidth(ch.codePointAt(0) as number, ch);
  return width;
}

/** splitAtWidth as it was written before the widths were remembered (no escape sequences here). */
function ruleSplit(text: string, max: number): [string, string] {
  let width = 0;
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i) as number;
    const ch = String.fromCodePoint(cp);
    const w = codePointWidth(cp, ch);
    if (width + w > max && i > 0) break;
    width += w;
    i += ch.length;
  }
  return [text.slice(0, i), text.slice(i)];
}

const SAMPLES = [
  "plain ascii",
  "Tiếng Việt có dấu: ở đây, người ta nói",
  "中文字符和日本語のかなカナ、한국어",
  "e\u0301\u0302\u0303 combining, ZWJ 👩‍👩‍👧 and flags 🇻🇳🇯🇵, skin 👍🏽",
  "zero width\u200b\u200d\ufeff\u2060 marks",
  "lone \ud800 high, lone \udc00 low, pair \ud83d\ude00 end\ud83d",
  "ideographic tone mark \u302a kana voiced \u3099 half marks \ufe20 selector \ufe0f",
  "astral mark \u{1d165} and wide \u{20000} and \u{1fa70}",
  "\u0007 control \u0085 C1 \u007f",
];

describe("display width", () => {
  it("is the rule's for every BMP code point, asked twice (the second from memory)", () => {
    const wrong: string[] = [];
    for (let cp = 0; cp < 0x10000; cp++) {
      const ch = String.fromCharCode(cp);
      const expected = codePointWidth(cp, ch);
      if (displayWidth(ch) !== expected || displayWidth(ch) !== expected) wrong.push(`U+${cp.toString(16)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("is the rule's for astral code points (emoji, marks, CJK extensions)", () => {
    for (let cp = 0x10000; cp < 0x40000; cp += 7) {
      const ch = String.fromCodePoint(cp);
      expect(displayWidth(ch) + displayWidth(ch)).toBe(2 * codePointWidth(cp, ch));
    }
  });

  test.prop([fc.array(fc.oneof(fc.constantFrom(...SAMPLES), fc.string({ unit: "binary", maxLength: 8 }), fc.string({ maxLength: 8 })))])(
    "counts printable ASCII a column each and everything else by the rule, in any mix",
    (parts) => {
      const text = parts.join("");
      expect(displayWidth(text)).toBe(ruleWidth(text));
    },
  );

  it("sums the rule over mixed text, and splits and cuts it where the rule does", () => {
    for (const text of SAMPLES) {
      expect(displayWidth(text), text).toBe(ruleWidth(text));
      expect(visibleWidth(`\x1b[1m${text}\x1b[0m`)).toBe(ruleWidth(text));
      for (let max = 0; max <= ruleWidth(text) + 1; max++) {
        expect(splitAtWidth(text, max), `${text} at ${max}`).toEqual(ruleSplit(text, max));
        const cut = cutToWidth(text, Math.max(max, 1));
        expect(ruleWidth(cut.text)).toBeLessThanOrEqual(Math.max(max, 1));
      }
    }
  });
});
