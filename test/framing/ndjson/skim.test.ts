// The skimmer's two ways of checking a skipped string's UTF-8 (byte by byte in JavaScript, or one call to a native
// validator handed in from above) give the same verdicts on valid and invalid strings, with and without the secret check.
import { isUtf8 } from "node:buffer";
import { afterEach, describe, expect, it } from "vitest";
import { type SkimOptions, skimRecord, useUtf8Validator } from "../../../src/framing/ndjson/_skim.ts";
import { mayHoldSecretRaw } from "../../../src/stages/redact/redact-text.ts";

const OPTIONS: SkimOptions = { keys: new Set(["stdout"]), toolResultKeys: new Set(["content"]), minBytes: 1 };
const CHECKED: SkimOptions = { ...OPTIONS, keep: mayHoldSecretRaw };

/** A record whose `stdout` string holds `inner` (raw bytes, between the quotes), and a short key value after it. */
function record(inner: readonly number[]): Uint8Array {
  const head = new TextEncoder().encode('{"type":"x","stdout":"');
  const tail = new TextEncoder().encode('","é":"ü"}');
  return Uint8Array.from([...head, ...inner, ...tail]);
}

const text = (s: string): number[] => [...new TextEncoder().encode(s)];

/** Valid strings, and strings with each way UTF-8 or JSON string text can be wrong. */
const CASES: [string, number[]][] = [
  ["ASCII with escapes", text('ls\\n\\tok \\u001b[0m \\" \\\\')],
  ["two-, three- and four-byte characters", text("é 日本 😀 \\n ü")],
  ["a lone continuation byte", [...text("ab"), 0x80, ...text("cd")]],
  ["a 0xff byte", [...text("ab"), 0xff]],
  ["an overlong form", [...text("a"), 0xc0, 0x80]],
  ["an overlong three-byte form", [0xe0, 0x80, 0xaf]],
  ["a surrogate", [...text("a"), 0xed, 0xa0, 0x80]],
  ["a value past U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
  ["a sequence cut by the closing quote", [...text("a"), 0xe6, 0x97]],
  ["a raw control byte", [...text("a"), 0x09, ...text("b")]],
  ["a raw newline", [...text("a"), 0x0a, ...text("b")]],
  ["a bad escape", text("bad \\q escape")],
  ["an escaped printable character", text("\\u0041")],
  ["a secret's shape", text(`GITHUB=ghp_${"a".repeat(36)}`)],
];

afterEach(() => useUtf8Validator(undefined));

describe("skimRecord with a native UTF-8 validator", () => {
  it.each(CASES)("gives the same ranges as the JavaScript check: %s", (_about, inner) => {
    const bytes = record(inner);
    for (const options of [OPTIONS, CHECKED]) {
      useUtf8Validator(undefined);
      const plain = skimRecord(bytes, options);
      let calls = 0;
      useUtf8Validator((b) => {
        calls++;
        return isUtf8(b);
      });
      expect(skimRecord(bytes, options)).toEqual(plain);
      // The native check is what ran on the skipped string (unless the scan stopped before its end).
      if (plain.length > 0) expect(calls).toBe(1);
    }
  });

  it("skips the valid strings and none of the invalid ones", () => {
    useUtf8Validator(isUtf8);
    const skipped = CASES.filter(([, inner]) => skimRecord(record(inner), OPTIONS).length > 0).map(([about]) => about);
    expect(skipped).toEqual(["ASCII with escapes", "two-, three- and four-byte characters", "a secret's shape"]);
    expect(skimRecord(record(text(`GITHUB=ghp_${"a".repeat(36)}`)), CHECKED)).toEqual([]);
  });

  it("agrees with the JavaScript check on random bytes", () => {
    let seed = 13;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const pool = [0x61, 0x20, 0x5c, 0x6e, 0x75, 0x30, 0x09, 0xc3, 0xa9, 0xe6, 0x97, 0xa5, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0xff, 0xc0];
    for (let n = 0; n < 2000; n++) {
      const inner = Array.from({ length: 1 + (random() % 12) }, () => pool[random() % pool.length] as number).filter((b) => b !== 0x22);
      const bytes = record(inner);
      useUtf8Validator(undefined);
      const plain = skimRecord(bytes, CHECKED);
      useUtf8Validator(isUtf8);
      expect(skimRecord(bytes, CHECKED), JSON.stringify(inner)).toEqual(plain);
    }
  });
});
