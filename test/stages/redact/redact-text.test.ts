import { describe, expect, it } from "vitest";
import { isSecretKey, redactText, redactValue, RULES, type RedactionCounts } from "../../../src/stages/redact/index.ts";
import { skimRecord } from "../../../src/framing/ndjson/_skim.ts";
import { ANY_TRIGGER, mayHoldSecretRaw, mayHoldSecretText } from "../../../src/stages/redact/redact-text.ts";
import { negatives, positives, streamingCases } from "./_corpus.ts";

describe.skipIf(positives.length === 0)("redactText on the fake-secret corpus", () => {
  it("has the corpus the spec describes (34 positives, 17 near-misses)", () => {
    expect(positives).toHaveLength(34);
    expect(negatives).toHaveLength(17);
  });

  it.each(positives.map((p) => [`${p.rule}: ${p.about}`, p] as const))("redacts %s", (_name, p) => {
    const counts: RedactionCounts = {};
    const out = redactText(p.text, counts);
    expect(out).not.toContain(p.token);
    expect(out).toContain(`[REDACTED:${p.rule}]`);
    expect(counts[p.rule as keyof RedactionCounts]).toBe(1);
    // The context around the secret stays readable.
    expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(1);
  });

  it.each(negatives.map((n) => [n.about, n.text] as const))("leaves a near-miss alone: %s", (_about, text) => {
    const counts: RedactionCounts = {};
    expect(redactText(text, counts)).toBe(text);
    expect(counts).toEqual({});
  });

  it.each(streamingCases.map((s) => [s.about, s] as const))("redacts the joined streaming case: %s", (_about, s) => {
    expect(redactText(s.text)).toBe(`${s.before}[REDACTED:${s.rule}]${s.after}`);
  });
});

describe("redactText", () => {
  it("returns clean text as the same string", () => {
    const text = "nothing to see here: a commit 1ef36fa0 and a UUID";
    expect(redactText(text)).toBe(text);
  });

  it("keeps the context of a contextual secret and replaces only the value", () => {
    expect(redactText("postgres://app:hunter22@db:5432/x")).toBe("postgres://app:[REDACTED:url-userinfo-password]@db:5432/x");
    expect(redactText('export API_TOKEN="abcdefgh1234"')).toBe('export API_TOKEN="[REDACTED:env-assignment]"');
    expect(redactText("Authorization: Bearer abcdefgh12345678")).toBe("Authorization: Bearer [REDACTED:authorization-header]");
  });

  it("redacts a token inside a clone URL once, not once per rule", () => {
    const token = `ghs_${"A1b2".repeat(9)}`;
    const counts: RedactionCounts = {};
    expect(redactText(`https://x-access-token:${token}@github.com/o/r`, counts)).toBe(
      "https://x-access-token:[REDACTED:github-token]@github.com/o/r",
    );
    expect(counts).toEqual({ "github-token": 1 });
  });

  it("stays fast on adversarial near-misses", () => {
    const hostile =
      "ghp_ sk-ant-api0 AKIA eyJhbGci.eyJ Authorization: Bearer x https://a:b ".repeat(5000) + "-----BEGIN RSA PRIVATE KEY-----".repeat(10);
    const out = redactText(hostile);
    expect(out.length).toBeGreaterThan(0);
  });
});

describe("redactValue", () => {
  it("replaces a value under a credential key whole and patterns in every string", () => {
    const counts: RedactionCounts = {};
    const value = {
      command: "curl -H 'Authorization: Bearer abcdefgh12345678' x",
      env: { apiKey: "plain-words", max_tokens: 100, tokenizer: "bpe" },
      list: ["AKIAIOSFODNN7EXAMPLE"],
    };
    expect(redactValue(value, counts)).toEqual({
      command: "curl -H 'Authorization: Bearer [REDACTED:authorization-header]' x",
      env: { apiKey: "[REDACTED:key-name]", max_tokens: 100, tokenizer: "bpe" },
      list: ["[REDACTED:aws-access-key-id]"],
    });
    expect(counts).toEqual({ "authorization-header": 1, "key-name": 1, "aws-access-key-id": 1 });
  });

  it("returns the same object when nothing is secret", () => {
    const value = { a: ["x", { b: 1 }], password: "", token: null, secret: 42, auth: true, credentials: { user: "me" } };
    expect(redactValue(value)).toBe(value);
  });

  it("keeps a __proto__ key as data", () => {
    const value = JSON.parse('{"__proto__": {"password": "x"}}');
    const out = redactValue(value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(["__proto__"]);
  });

  it.each([
    ["password", true],
    ["apiKey", true],
    ["GITHUB_TOKEN", true],
    ["Authorization", true],
    ["max_tokens", false],
    ["tokenizer", false],
    ["input_tokens", false],
  ])("isSecretKey(%s) is %s", (key, expected) => {
    expect(isSecretKey(key)).toBe(expected);
  });
});

describe("the combined trigger", () => {
  it("fires on every fake secret, alone and in its context", () => {
    // A contextual secret (a password, a header value) alone has nothing to recognise it by.
    const contextual = new Set(["url-userinfo-password", "authorization-header", "env-assignment"]);
    for (const p of [...positives, ...streamingCases]) {
      if (!contextual.has(p.rule)) expect(ANY_TRIGGER.test(p.token), p.about).toBe(true);
      expect(ANY_TRIGGER.test(p.text), p.about).toBe(true);
    }
  });

  it("fires wherever a rule matches, on text mixing secrets and near-misses", () => {
    const pieces = [...positives.map((p) => p.text), ...negatives.map((n) => n.text), "plain words", "a: b = c"];
    for (const a of pieces) {
      for (const b of pieces.slice(0, 12)) {
        const text = `${a} ${b}`;
        if (RULES.some((rule) => new RegExp(rule.pattern.source, rule.pattern.flags).test(text)))
          expect(ANY_TRIGGER.test(text), text).toBe(true);
      }
    }
  });

  it("is anchored on no byte that fills tool output: the letters of a PNG's base64 signature, the k of a test runner's ok", () => {
    // The skimmer's byte scan stops at every anchor byte of a string it may skip; these bytes come by the thousand.
    const common = new Set([..."iVBORw0KGgok"].map((c) => c.charCodeAt(0)));
    for (const keyword of mayHoldSecretRaw.keywords) {
      const anchor = keyword.text.charAt(keyword.at);
      const anchors = keyword.ignoreCase ? [anchor.toLowerCase(), anchor.toUpperCase()] : [anchor];
      for (const c of anchors) expect(common.has(c.charCodeAt(0)), `${keyword.text} on ${c}`).toBe(false);
    }
  });

  it("does not fire on ordinary prose and code", () => {
    for (const text of ["the cat sat on the mat", "const x = a.b(c) - d;", "git push origin main", "see https-less text", "ghp is short"]) {
      expect(ANY_TRIGGER.test(text), text).toBe(false);
    }
  });
});

describe("the trigger check on a string's bytes (skipped strings)", () => {
  const utf8 = new TextEncoder();
  /** The check on the bytes of `text` placed inside other bytes, as the skimmer hands a string over. */
  const onBytes = (text: string): boolean => {
    const inner = JSON.stringify(text).slice(1, -1);
    const bytes = utf8.encode(`{"a":"${inner}"}`);
    const options = { keys: new Set(["a"]), toolResultKeys: new Set<string>(), minBytes: 0, minLineBytes: 0 };
    // Kept (not skipped) by the secret check, while skipped without it.
    expect(skimRecord(bytes, options).length).toBe(2);
    return skimRecord(bytes, { ...options, keep: mayHoldSecretRaw }).length === 0;
  };
  const fillers = ["", "x", "the output of a tool, with code: const a_b = c.d - e; ", "é€ü ".repeat(40), "_-.:=JAzwW".repeat(12)];

  it("says yes wherever the expressions on the text do: every secret and near-miss, at the start, middle and end", () => {
    const pieces = [...positives.map((p) => p.text), ...negatives.map((n) => n.text), ...streamingCases.map((s) => s.text)];
    pieces.push(
      "Authorization:\tBearer x",
      "AWS_SECRET=1",
      "aws secret",
      "x -----BEGIN RSA",
      "ends with -",
      "TOKEN=",
      "A3T",
      "https://u:p@h",
    );
    let checked = 0;
    for (const piece of pieces) {
      for (const before of fillers) {
        for (const after of fillers) {
          const text = `${before}${piece}${after}`;
          if (mayHoldSecretText(text)) {
            expect(onBytes(text), text).toBe(true);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it("says no on ordinary tool output, long or short, where the expressions do", () => {
    const code = "export function f(a_b, c) { return a_b.map((x) => x - c).filter(Boolean); } // see: notes\n".repeat(200);
    for (const text of [code, "the cat sat on the mat", "const x = a.b(c) - d;", "git push origin main", "naïve café ".repeat(500)]) {
      expect(mayHoldSecretText(text), text.slice(0, 40)).toBe(false);
      expect(onBytes(text), text.slice(0, 40)).toBe(false);
    }
  });
});
