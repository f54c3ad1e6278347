// The secret rules are declared once (src/stages/redact/rules.ts) and every matcher is made from them: a new token
// format is one edit there. Each rule's examples (a token rule's are made from its steps, one per prefix) must be
// redacted by the rule and passed by every trigger made from its keywords: the rule's own, the combined one, the
// skimmer's byte check in JavaScript and in WebAssembly, and the streaming redactor cut anywhere.
import { describe, expect, it } from "vitest";
import { type SkimOptions, Skimmer } from "../../../src/framing/ndjson/_skim.ts";
import { createStreamRedactor } from "../../../src/stages/redact/create-stream-redactor.ts";
import { ANY_TRIGGER, mayHoldSecretRaw, type RedactionCounts, redactText } from "../../../src/stages/redact/redact-text.ts";
import { RULES } from "../../../src/stages/redact/rules.ts";

const SKIM: SkimOptions = { keys: new Set(["stdout"]), toolResultKeys: new Set(), minBytes: 0, minLineBytes: 0 };
const skimmers = {
  javascript: new Skimmer({ ...SKIM, keep: mayHoldSecretRaw }, "javascript"),
  webAssembly: new Skimmer({ ...SKIM, keep: mayHoldSecretRaw }),
  none: new Skimmer(SKIM),
};
/** Whether a skimmer skips `text` as a long tool output (a secret check keeps it). */
const skips = (skimmer: Skimmer, text: string): boolean =>
  skimmer.skim(new TextEncoder().encode(`{"stdout":"${JSON.stringify(`${"x".repeat(100)} ${text} ${"y".repeat(100)}`).slice(1, -1)}"}`))
    .length > 0;

const examples = RULES.flatMap((rule) => rule.examples.map((example) => [rule.kind, example, rule] as const));

describe("the rules as data", () => {
  it("every rule has keywords (printable ASCII, no quote or backslash) and an example holding each", () => {
    for (const rule of RULES) {
      expect(rule.keywords.length, rule.kind).toBeGreaterThan(0);
      for (const keyword of rule.keywords) {
        expect(keyword, rule.kind).toMatch(/^[\x21\x23-\x5b\x5d-\x7e]+$/);
        const holds = (example: string) =>
          rule.ignoreCase ? example.toLowerCase().includes(keyword.toLowerCase()) : example.includes(keyword);
        expect(rule.examples.some(holds), `${rule.kind}: ${keyword}`).toBe(true);
      }
    }
  });

  it.each(examples)("%s: %s is redacted by its rule and passes every trigger", (kind, example, rule) => {
    const counts: RedactionCounts = {};
    expect(redactText(example, counts)).toContain(`[REDACTED:${kind}]`);
    expect(counts[kind]).toBe(1);
    expect(rule.trigger.test(example)).toBe(true);
    expect(ANY_TRIGGER.test(example)).toBe(true);
    expect(skips(skimmers.none, example)).toBe(true);
    expect(skips(skimmers.javascript, example)).toBe(false);
    expect(skips(skimmers.webAssembly, example)).toBe(false);
  });

  it.each(examples)("%s: %s is redacted the same when streamed in two pieces, cut anywhere", (_kind, example) => {
    const whole = redactText(example);
    for (let cut = 1; cut < example.length; cut++) {
      const redactor = createStreamRedactor();
      const shown = redactor.push(example.slice(0, cut)) + redactor.push(example.slice(cut)) + redactor.flush();
      expect(shown, `cut at ${cut}`).toBe(whole);
    }
  });

  it("a keyword alone is enough for every trigger, and its absence for none (the triggers are the keywords)", () => {
    for (const rule of RULES) {
      for (const keyword of rule.keywords) {
        expect(rule.trigger.test(`a ${keyword} b`), keyword).toBe(true);
        expect(ANY_TRIGGER.test(`a ${keyword} b`), keyword).toBe(true);
        expect(skips(skimmers.javascript, keyword), keyword).toBe(false);
        expect(skips(skimmers.webAssembly, keyword), keyword).toBe(false);
        const cut = keyword.slice(0, -1);
        if (!RULES.some((other) => other.keywords.some((k) => cut.toLowerCase().includes(k.toLowerCase())))) {
          expect(ANY_TRIGGER.test(`a ${cut} b`), cut).toBe(false);
          expect(skips(skimmers.webAssembly, cut), cut).toBe(true);
        }
      }
    }
  });
});
