import { fc, test } from "../../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { createStreamRedactor, holdStart, redactText, type RedactionCounts } from "../../../src/stages/redact/index.ts";
import { ANY_TRIGGER } from "../../../src/stages/redact/redact-text.ts";
import { RULES } from "../../../src/stages/redact/rules.ts";
import { negatives, positives, streamingCases } from "./_corpus.ts";

/** Feeds `text` cut at `cuts` through a stream redactor; returns what was shown, piece by piece. */
function streamed(text: string, cuts: readonly number[], counts?: RedactionCounts): string[] {
  const redactor = createStreamRedactor(counts);
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let last = 0;
  for (const point of [...points, text.length]) {
    out.push(redactor.push(text.slice(last, point)));
    last = point;
  }
  out.push(redactor.flush());
  return out;
}

describe.skipIf(streamingCases.length === 0)("the corpus's cross-delta cases", () => {
  it.each(streamingCases.map((s) => [s.about, s] as const))("%s: caught at every split point", (_about, s) => {
    for (let cut = 0; cut <= s.text.length; cut++) {
      for (const second of [cut, Math.min(s.text.length, cut + 7)]) {
        const shown = streamed(s.text, [cut, second]).join("");
        expect(shown, `cut at ${cut} and ${second}`).toBe(`${s.before}[REDACTED:${s.rule}]${s.after}`);
      }
    }
  });
});

describe.skipIf(positives.length === 0)("every fake secret, streamed", () => {
  it.each(positives.map((p) => [`${p.rule}: ${p.about}`, p] as const))("%s is caught whichever single cut splits it", (_name, p) => {
    const whole = redactText(p.text);
    for (let cut = 0; cut <= p.text.length; cut++) {
      const counts: RedactionCounts = {};
      expect(streamed(p.text, [cut], counts).join(""), `cut at ${cut}`).toBe(whole);
      expect(counts[p.rule as keyof RedactionCounts]).toBe(1);
    }
  });

  it.each(negatives.map((n) => [n.about, n.text] as const))("a near-miss streams through unchanged: %s", (_about, text) => {
    for (let cut = 0; cut <= text.length; cut++) expect(streamed(text, [cut]).join("")).toBe(text);
  });
});

const words = [
  "the",
  "cat",
  "sat",
  "on",
  "a",
  "mat.",
  "\n",
  "  ",
  "risk-free",
  "git",
  "ok,",
  "A",
  "e",
  "https://example.com/x",
  "AKIA",
  "sk-",
  "ghp",
  "eyJ",
];

/** Texts mixing ordinary words, near-misses and every fake secret of the corpus. */
const mixedText = fc
  .array(
    fc.oneof(
      fc.constantFrom(...words),
      fc.constantFrom(...(positives.length > 0 ? positives.map((p) => p.text) : ["x"])),
      fc.constantFrom(...(negatives.length > 0 ? negatives.map((n) => n.text) : ["y"])),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(" "));

describe("streaming equals whole-text redaction", () => {
  test.prop([mixedText, fc.array(fc.nat(), { maxLength: 12 })], { numRuns: 300 })(
    "any text cut into any deltas comes out as the unsplit redaction",
    (text, cuts) => {
      const wholeCounts: RedactionCounts = {};
      const streamCounts: RedactionCounts = {};
      const whole = redactText(text, wholeCounts);
      expect(streamed(text, cuts, streamCounts).join("")).toBe(whole);
      expect(streamCounts).toEqual(wholeCounts);
      for (const p of positives) expect(whole).not.toContain(p.token);
    },
  );

  test.prop([
    fc.array(fc.constantFrom("the", "cat", "sat", "on", "mat", "1", "2", ".", ",", " ", "\n", "é", "日本"), {
      minLength: 1,
      maxLength: 20,
    }),
  ])("a delta with no possible-secret tail is shown at once", (pieces) => {
    const redactor = createStreamRedactor();
    for (const piece of pieces) expect(redactor.push(piece)).toBe(piece);
    expect(redactor.held).toBe(0);
  });
});

describe("holdStart", () => {
  it.each([
    ["plain words end here", 20],
    ["trailing space ", 15],
    ["my key is ghp", 10],
    ["token: sk-ant-api03-abc", 7],
    ["Authorization: Bearer abc", 22],
    ["Authorization: Bearer ", 22],
    ["url https://user:pa", 17],
    ["a key\n-----BEGIN RSA PRIV", 6],
    ["risk", 4],
    ["commit 1ef36fa0", 15],
  ])("%j holds from %i", (text, expected) => {
    expect(holdStart(text)).toBe(expected);
  });

  /** The rule-by-rule scan holdStart replaced with one combined expression: the earliest partial match of any rule. */
  function holdStartRuleByRule(text: string, from = 0): number {
    let lastSpace = -1;
    for (let i = text.length - 1; i >= 0; i--) {
      if (/[ \n\t\r\f\v]/.test(text[i] as string)) {
        lastSpace = i;
        break;
      }
    }
    const run = Math.max(from, lastSpace + 1);
    let start = text.length;
    if (run === text.length && !text.includes("-----BEGIN")) return start;
    for (const rule of RULES) {
      const scanFrom = rule.kind === "private-key-block" && text.includes("-----BEGIN", Math.max(0, from - 16)) ? from : run;
      if (scanFrom >= start) continue;
      rule.partial.lastIndex = scanFrom;
      const found = rule.partial.exec(text);
      if (found !== null && found.index < start) start = Math.max(from, found.index);
    }
    return start;
  }

  const longContexts = [`https://${"u".repeat(150)}:`, `${"X".repeat(70)}_TOKEN=`, "Authorization:  Bearer ", "see"];
  const prefixes = [...longContexts, ...longContexts.map((c) => `${c}abcdefgh`)];
  prefixes.push(...positives.flatMap((p) => [p.text, ...[3, 5, 9, 14, 20, 30].map((n) => p.text.slice(0, p.text.indexOf(p.token) + n))]));
  test.prop(
    [
      fc.array(
        fc.oneof(
          fc.constantFrom(...words, "Authorization: Bearer ", "aws_secret_access_key = ", "-----BEGIN"),
          fc.constantFrom(...(prefixes.length > 0 ? prefixes : ["x"])),
        ),
        {
          maxLength: 8,
        },
      ),
      fc.nat(),
    ],
    { numRuns: 1000 },
  )("finds the same start as trying each rule in turn", (parts, cut) => {
    const text = parts.join(parts.length % 2 === 0 ? " " : "");
    const from = cut % (text.length + 1);
    expect(holdStart(text, from)).toBe(holdStartRuleByRule(text, from));
  });

  it("holds a URL password whose scheme was shown long before, in the same run without whitespace", () => {
    const shown = `see https://${"u".repeat(150)}:`;
    const text = `${shown}pa`;
    expect(holdStart(text, shown.length)).toBe(shown.length);
    expect(holdStartRuleByRule(text, shown.length)).toBe(shown.length);
    const shownEnv = `export ${"X".repeat(60)}_TOKEN=`;
    expect(holdStart(`${shownEnv}abc`, shownEnv.length)).toBe(shownEnv.length);
  });

  it("holds a private key block until its END line, then redacts it whole", () => {
    const redactor = createStreamRedactor();
    expect(redactor.push("key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n")).toBe("key:\n");
    expect(redactor.push("-----END OPENSSH PRIVATE KEY-----\ndone")).toBe("[REDACTED:private-key-block]\ndone");
  });
});

describe("the trigger scan of the text already shown", () => {
  /**
   * The stream redactor as it was before it scanned only the end of the text it had shown: the whole
   * window (TRIGGER_OVERLAP characters of context plus the new text) tested for a trigger at every piece.
   */
  function referenceRedactor(counts: RedactionCounts) {
    let context = "";
    let held = "";
    let sinceTrigger = Infinity;
    const release = (all: string, cut: number): string => {
      const triggered = ANY_TRIGGER.test(all.slice(Math.max(0, context.length - 96), cut));
      sinceTrigger = triggered ? 0 : sinceTrigger + (cut - context.length);
      const shown =
        triggered || sinceTrigger < 384 ? redactText(all.slice(0, cut), counts, context.length) : all.slice(context.length, cut);
      context = all.slice(Math.max(0, cut - 384), cut);
      return shown;
    };
    return {
      push(text: string): string {
        if (text.length === 0) return "";
        const all = context + held + text;
        let cut = holdStart(all, context.length);
        if (all.length - cut > 20_000) cut = all.length;
        held = all.slice(cut);
        return release(all, cut);
      },
      flush(): string {
        const all = context + held;
        held = "";
        const shown = release(all, all.length);
        context = "";
        return shown;
      },
    };
  }

  // Pieces that start, end or split a trigger (`:` `//`, `-` `----BEGIN`, `A` `KIA`, `_`, `=`), long filler
  // that pushes a trigger out of the window, and whole secrets.
  const secretCut = fc
    .tuple(fc.constantFrom(...(positives.length > 0 ? positives.map((p) => p.text) : ["x"])), fc.nat(), fc.nat())
    .map(([text, a, b]) => {
      const [i, j] = [a % (text.length + 1), b % (text.length + 1)].sort((x, y) => x - y) as [number, number];
      return [text.slice(0, i), text.slice(i, j), text.slice(j)];
    });
  const pieces = fc.oneof(
    fc.constantFrom(
      ...words,
      ":",
      "//",
      "-",
      "----BEGIN",
      "-----BEGIN RSA PRIVATE KEY-----",
      "A",
      "KIA",
      "_",
      "=",
      "TOKEN",
      "uthorization",
    ),
    fc.constantFrom(" ", "\n", "x".repeat(40), "word ".repeat(30), "é日本 ".repeat(20)),
    fc.string({ maxLength: 6 }),
  );
  const stream = fc
    .array(
      fc.oneof(
        pieces.map((p) => [p]),
        secretCut,
      ),
      { maxLength: 30 },
    )
    .map((groups) => groups.flat());
  test.prop([stream], { numRuns: 1000 })("shows what scanning the whole window each time shows", (pieces) => {
    const counts: RedactionCounts = {};
    const referenceCounts: RedactionCounts = {};
    const redactor = createStreamRedactor(counts);
    const reference = referenceRedactor(referenceCounts);
    for (const text of pieces) expect(redactor.push(text)).toBe(reference.push(text));
    expect(redactor.flush()).toBe(reference.flush());
    expect(counts).toEqual(referenceCounts);
  });
});
