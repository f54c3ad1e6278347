// The skimmer's WebAssembly scan (src/framing/ndjson/_skim-scan.wat) gives the verdicts of the JavaScript scan it
// stands in for, keywords included, and the committed module holds the bytes of the committed .wat.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { fc, test } from "../../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { createNativeScanner } from "../../../src/framing/ndjson/_skim-native.ts";
import { SKIM_SCAN_WAT_SHA256 } from "../../../src/framing/ndjson/_skim-scan.wasm.ts";
import { type SkimOptions, Skimmer, skimRecord } from "../../../src/framing/ndjson/_skim.ts";
import { mayHoldSecretRaw } from "../../../src/stages/redact/redact-text.ts";

const OPTIONS: SkimOptions = { keys: new Set(["stdout"]), toolResultKeys: new Set(["content"]), minBytes: 1 };
const CHECKED: SkimOptions = { ...OPTIONS, keep: mayHoldSecretRaw };
const encoder = new TextEncoder();
const text = (s: string): number[] => [...encoder.encode(s)];

/** A record whose `stdout` string holds `inner` (raw bytes, between the quotes), then another skippable string. */
function record(inner: readonly number[]): Uint8Array {
  return Uint8Array.from([...text('{"type":"x","stdout":"'), ...inner, ...text('","é":"ü","stdout":"'), ...inner, ...text('"}')]);
}

/** One skimmer per options and scan, made once (each makes its own WebAssembly instance). */
const skimmers = new Map<string, Skimmer>();
/** The ranges a skimmer gives with the SIMD scan or the JavaScript one. */
function rangesOf(bytes: Uint8Array, options: SkimOptions, simd: boolean): number[] {
  const key = `${options === CHECKED} ${simd}`;
  if (!skimmers.has(key)) skimmers.set(key, new Skimmer(options, simd ? "auto" : "javascript"));
  return [...(skimmers.get(key) as Skimmer).skim(bytes)];
}

const scanner = createNativeScanner(mayHoldSecretRaw.keywords);

describe("the WebAssembly module", () => {
  it("is there in Node (SIMD on)", () => {
    expect(scanner).toBeDefined();
  });

  it("was assembled from the committed .wat (npm run build:wasm after editing it)", () => {
    const wat = readFileSync(new URL("../../../src/framing/ndjson/_skim-scan.wat", import.meta.url), "utf8");
    expect(createHash("sha256").update(wat).digest("hex")).toBe(SKIM_SCAN_WAT_SHA256);
  });

  const hasWabt = (() => {
    try {
      createRequire(import.meta.url).resolve("wabt");
      return true;
    } catch {
      return false;
    }
  })();
  it.skipIf(!hasWabt)("holds exactly the bytes wabt assembles from it", () => {
    const script = fileURLToPath(new URL("../../../scripts/build-wasm.mjs", import.meta.url));
    expect(execFileSync(process.execPath, [script, "--check"], { encoding: "utf8" })).toContain("is current");
  });
});

/** Inner texts of every kind the scan tells apart: escapes good and bad, quotes, control bytes, anchors, secrets, UTF-8. */
const PIECES: readonly (readonly number[])[] = [
  ...["a", "plain text ", "0123456789abcdef", "    ", "é", "日本", "😀", "\\n", "\\t", '\\"', "\\\\", "\\u00e9", "\\u001b", "\\u2028"].map(
    text,
  ),
  ...["\\u0041", "\\/", "\\q", "\\u12", "\\u00G0", "\\u007f", "\\u001f", "\\"].map(text),
  ...['"', "{", "}", ",", "["].map(text),
  [0x09],
  [0x0a],
  [0x00],
  [0x1f],
  [0x7f],
  [0x80],
  [0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe6, 0x97],
  ...["_", "-", ".", ":", "=", "J", "A", "z", "w", "W", "ghp_", "gho_", "github_", "sk_", "sk-", "xoxb-", "xapp-", "pypi-", "glpat-"].map(
    text,
  ),
  ...["hooks.", "hvs.", "ya29.", "eyJ", "://", "https://", "TOKEN=", "MY_SECRET=", "AKIA", "ASIA", "A3T", "AIza", "Authorization: "].map(
    text,
  ),
  ...["aws_secret_access_key=", "AWS", "-----BEGIN", "--", "x-", "authorization", "a-"].map(text),
  ...["aw", "Aw", "aW", "ws", "WS", "saw it", " = ", "a=", "N=", "_=", "9=", "@=", "[=", "==", "^="].map(text),
  text(`ghp_${"a".repeat(36)}`),
  text(`sk-ant-api03-${"b".repeat(40)}`),
  text(`AKIA${"Q".repeat(16)}`),
];

const piece = fc.oneof(
  fc.constantFrom(...PIECES),
  fc.uint8Array({ minLength: 0, maxLength: 40 }).map((b) => [...b]),
);
const inner = fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.flat());

describe("the SIMD scan against the JavaScript scan", () => {
  test.prop([inner], { numRuns: 3000 })("the same ranges on random strings, with and without the secret check", (bytes) => {
    const line = record(bytes);
    for (const options of [OPTIONS, CHECKED]) expect(rangesOf(line, options, true)).toEqual(rangesOf(line, options, false));
  });

  test.prop([fc.array(fc.constantFrom(...PIECES.slice(0, 14), ...PIECES.slice(-40)), { maxLength: 60 }).map((p) => p.flat())], {
    numRuns: 2000,
  })("the same anchors where both read a valid string", (pieces) => {
    const line = Uint8Array.from([0x22, ...pieces, 0x22, 0x7d]);
    const seen: number[] = [];
    const end = scanner!.stringEnd(line, 1, true, seen);
    const expected = anchorsOf(line, 1);
    expect(end).toBe(expected.end);
    if (end >= 0) expect(seen).toEqual(expected.at);
  });

  it("skips and keeps what the JavaScript scan does on long strings (block edges, a secret deep inside, a cut escape)", () => {
    const long = "x".repeat(4093);
    for (const middle of ["", "é", "\\n", "ghp_", `ghp_${"a".repeat(36)}`, "\\u0041", "\t", "\\"]) {
      for (let shift = 0; shift < 17; shift++) {
        const line = record(text(long.slice(shift) + middle + long));
        for (const options of [OPTIONS, CHECKED])
          expect(rangesOf(line, options, true), `${middle} ${shift}`).toEqual(rangesOf(line, options, false));
      }
    }
  });

  it("checks UTF-8 as the standard does (TextDecoder, fatal): every lead byte with a second byte of every kind, across a block's edge", () => {
    const fatal = new TextDecoder("utf-8", { fatal: true });
    const valid = (bytes: Uint8Array): boolean => {
      try {
        fatal.decode(bytes);
        return true;
      } catch {
        return false;
      }
    };
    const wrong: string[] = [];
    for (let lead = 0x80; lead <= 0xff; lead++) {
      // Both ends of each high half from 0x80: the ranges that tell overlong forms, surrogates and values past U+10FFFF.
      for (const second of [0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xaf, 0xb0, 0xbf, 0xc0, 0xff]) {
        for (const length of [2, 3, 4]) {
          const sequence = [lead, second, 0x80, 0x80].slice(0, length);
          // The string's text starts a block: sequences at its start, across its first edge, at its end.
          for (const shift of [0, 13, 14, 15, 16]) {
            const inner = Uint8Array.from([...text("x".repeat(shift)), ...sequence]);
            const line = Uint8Array.from([0x22, ...inner, 0x22, 0x7d]);
            const end = scanner!.stringEnd(line, 1, true, []);
            if (end !== (valid(inner) ? line.length - 2 : -1)) wrong.push(`${sequence.map((b) => b.toString(16))} at ${shift}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it("takes more anchors than its list holds (the scan resumes) and grows its memory for a long line", () => {
    const many = text("AKIA ".repeat(5000));
    const seen: number[] = [];
    const line = Uint8Array.from([0x22, ...many, 0x22]);
    expect(scanner!.stringEnd(line, 1, true, seen)).toBe(line.length - 1);
    expect(seen).toEqual(anchorsOf(line, 1).at);
    expect(seen).toHaveLength(5000);
    const big = new Uint8Array(3_000_000).fill(0x61);
    big[0] = 0x22;
    big[big.length - 2] = 0x22;
    big[big.length - 1] = 0x7d;
    expect(scanner!.stringEnd(big, 1, false, [])).toBe(big.length - 2);
    expect(rangesOf(record([...big.subarray(1, 100_000)]), CHECKED, true)).toHaveLength(4);
  });
});

describe("a line joined into the scan's memory (Skimmer.lineMemory: no copy)", () => {
  /** The line's bytes written where the skimmer's lineMemory puts them, then `cut` bytes left off its end (a CR). */
  function inScanMemory(skimmer: Skimmer, line: Uint8Array, cut = 0): Uint8Array {
    const memory = skimmer.lineMemory(line.length);
    expect(memory).toBeDefined();
    memory!.set(line);
    return memory!.subarray(0, line.length - cut);
  }

  it("gives the ranges of the same line elsewhere, with and without the secret check", () => {
    for (const inner of [text("file1\\nfile2 é 日本"), text("ghp_" + "a".repeat(36)), text("x".repeat(200) + "\\q")]) {
      const line = record(inner);
      for (const options of [OPTIONS, CHECKED]) {
        const skimmer = new Skimmer(options);
        expect(skimmer.skim(inScanMemory(skimmer, line))).toEqual(skimRecord(line, options));
      }
    }
  });

  it("ends a string at the line's end, not at a byte left off it (the CR of a CRLF line)", () => {
    const skimmer = new Skimmer(OPTIONS);
    const line = Uint8Array.from([...text('{"type":"x","stdout":"abc'), 0x0d]);
    expect(skimmer.skim(inScanMemory(skimmer, line, 1))).toEqual([]);
    const whole = Uint8Array.from([...text('{"type":"x","stdout":"abc"}'), 0x0d]);
    expect(skimmer.skim(inScanMemory(skimmer, whole, 1))).toEqual(skimRecord(whole.subarray(0, whole.length - 1), OPTIONS));
  });

  it("is not used where the scan does not run", () => {
    expect(new Skimmer(OPTIONS, "javascript").lineMemory(100)).toBeUndefined();
  });

  it("is each skimmer's own: two readers' lines do not share it", () => {
    const a = new Skimmer(OPTIONS).lineMemory(100);
    const b = new Skimmer(OPTIONS).lineMemory(100);
    expect(a?.buffer).not.toBe(b?.buffer);
  });
});

/** The anchors at which a keyword of the secret check is written (a plain text search) and the end, for a check of the native scan. */
function anchorsOf(bytes: Uint8Array, start: number): { end: number; at: number[] } {
  let end = -1;
  for (let i = start; i < bytes.length; i++) {
    const c = bytes[i] as number;
    if (c === 0x22) {
      end = i;
      break;
    }
    if (c < 0x20) return { end: -1, at: [] };
    if (c === 0x5c) {
      const e = bytes[i + 1];
      if (e === 0x75) {
        const hex = String.fromCharCode(...bytes.subarray(i + 2, i + 6));
        if (!/^[0-9a-fA-F]{4}$/.test(hex) || /^00[2-7]/.test(hex)) return { end: -1, at: [] };
        i += 5;
      } else if (e !== undefined && '"\\bfnrt'.includes(String.fromCharCode(e))) i += 1;
      else return { end: -1, at: [] };
    }
  }
  if (end < 0) return { end, at: [] };
  const latin1 = String.fromCharCode(...bytes.subarray(start, end));
  const at = new Set<number>();
  for (const keyword of mayHoldSecretRaw.keywords) {
    const haystack = keyword.ignoreCase ? latin1.toLowerCase() : latin1;
    const needle = keyword.ignoreCase ? keyword.text.toLowerCase() : keyword.text;
    for (let from = haystack.indexOf(needle); from >= 0; from = haystack.indexOf(needle, from + 1)) at.add(start + from + keyword.at);
  }
  return { end, at: [...at].sort((x, y) => x - y) };
}
