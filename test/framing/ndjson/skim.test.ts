// The skimmer's two scans of a skipped string (byte by byte in JavaScript; WebAssembly SIMD, UTF-8 sequences checked
// whole) give the same verdicts on valid and invalid strings, with and without the secret check.
import { describe, expect, it } from "vitest";
import { type SkimOptions, Skimmer } from "../../../src/framing/ndjson/_skim.ts";
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

describe("the skimmer's two scans (WebAssembly SIMD, JavaScript byte by byte)", () => {
  const js = (bytes: Uint8Array, options: SkimOptions): number[] => [...new Skimmer(options, "javascript").skim(bytes)];
  const native = (bytes: Uint8Array, options: SkimOptions): number[] => [...new Skimmer(options).skim(bytes)];

  it.each(CASES)("give the same ranges: %s", (_about, inner) => {
    const bytes = record(inner);
    for (const options of [OPTIONS, CHECKED]) expect(native(bytes, options)).toEqual(js(bytes, options));
  });

  it("skip the valid strings and none of the invalid ones", () => {
    for (const skim of [js, native]) {
      const skipped = CASES.filter(([, inner]) => skim(record(inner), OPTIONS).length > 0).map(([about]) => about);
      expect(skipped).toEqual(["ASCII with escapes", "two-, three- and four-byte characters", "a secret's shape"]);
      expect(skim(record(text(`GITHUB=ghp_${"a".repeat(36)}`)), CHECKED)).toEqual([]);
    }
  });

  it("agree on random bytes", () => {
    let seed = 13;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    const pool = [0x61, 0x20, 0x5c, 0x6e, 0x75, 0x30, 0x09, 0xc3, 0xa9, 0xe6, 0x97, 0xa5, 0xf0, 0x9f, 0x98, 0x80, 0xed, 0xa0, 0xff, 0xc0];
    for (let n = 0; n < 2000; n++) {
      const inner = Array.from({ length: 1 + (random() % 12) }, () => pool[random() % pool.length] as number).filter((b) => b !== 0x22);
      const bytes = record(inner);
      expect(native(bytes, CHECKED), JSON.stringify(inner)).toEqual(js(bytes, CHECKED));
    }
  });
});
