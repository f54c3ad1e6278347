/** The framer's side of held strings: which strings are held as bytes (canonical ones only) and what the record gets instead. */
import { describe, expect, it } from "vitest";
import {
  createFramingParser,
  type InputRecord,
  type JsonRecord,
  type SkimOptions,
} from "../../../src/framing/ndjson/create-ndjson-parser.ts";
import { isCanonicalJsonString } from "../../../src/framing/ndjson/_placeholders.ts";
import { HeldStrings } from "../../../src/framing/held-strings.ts";

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A JSON record's value, typed as the test wrote it. */
function jsonValue<T>(record: InputRecord | undefined): T {
  expect(record?.kind).toBe("json");
  return (record as JsonRecord).value as unknown as T;
}

/**
 * Whether the JSON string text `json` (no quotes) is judged canonical: inside a longer line (no byte past
 * its end is read), at each alignment of its start (the check reads four bytes at a time where it can).
 */
function canonical(json: string): boolean {
  const verdicts = new Set<boolean>();
  for (const pad of ["", " ", "  ", "   "]) {
    const bytes = encode(`${pad}["${json}","\\u00E9"]`);
    verdicts.add(isCanonicalJsonString(bytes, pad.length + 2, pad.length + 2 + encode(json).length));
  }
  expect(verdicts.size).toBe(1);
  return [...verdicts][0] as boolean;
}

/** What JSON.stringify writes for the value of `json`, without its quotes. */
const restringified = (json: string): string => JSON.stringify(JSON.parse(`"${json}"`)).slice(1, -1);

describe("isCanonicalJsonString: exactly what JSON.stringify writes", () => {
  const cases: [string, boolean][] = [
    ["plain text, 配置 👩‍💻", true],
    ['\\"quoted\\" back\\\\slash \\n \\r \\t \\b \\f', true],
    ["\\u0000 \\u001b[32m \\u001f \\u000b \\u000e", true],
    ["raw U+2028 \u2028 and U+2029 \u2029, DEL \u007f", true],
    ["\\\\u0041 is a backslash and u0041", true],
    ["\\\\\\u001b three backslashes then an escape", true],
    ["\\u001B uppercase hex", false],
    ["\\u00e9 escaped non-ASCII", false],
    ["\\u2028 escaped line separator", false],
    ["\\ud800 a lone surrogate, escaped", false],
    ["\\ud83d\\ude00 an escaped pair", false],
    ["\\u000a a short form the long way", false],
    ["\\u0008 \\u0009 \\u000c \\u000d", false],
    ["\\u0020 printable ASCII escaped", false],
  ];
  it.each(cases)("%s → %s", (json, expected) => {
    expect(canonical(json)).toBe(expected);
    // The verdict is right: canonical text is its value's JSON.stringify, and the others are not
    // (but an escaped lone surrogate, which JSON.stringify writes too: taken as not canonical, by decision).
    expect(restringified(json) === json).toBe(expected || json.startsWith("\\ud800"));
  });

  it("agrees with JSON.stringify on random escapes and text", () => {
    const pieces = [
      "a",
      "é",
      "\\n",
      "\\\\",
      "\\u001b",
      "\\u001B",
      "\\u00e9",
      "\\ud800",
      "\\u0000",
      '\\"',
      "\u2028",
      "\\u000a",
      "u",
      "\\\\u",
    ];
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let n = 0; n < 2000; n++) {
      let json = "";
      for (let k = next() % 8; k >= 0; k--) json += pieces[next() % pieces.length];
      // Never canonical when JSON.stringify writes other text; and canonical whenever it writes the same, but for escaped lone surrogates.
      const same = restringified(json) === json;
      expect(canonical(json), json).toBe(same && !/\\ud[89ab]/.test(json.replaceAll("\\\\", "")));
    }
  });
});

describe("the framing parser with holdStrings", () => {
  const skim: SkimOptions = { keys: new Set(["stdout"]), toolResultKeys: new Set(["content"]), minBytes: 16, minLineBytes: 0 };

  function read(line: string, chunk: number, maxBytes = 1 << 20): { records: InputRecord[]; registry: HeldStrings } {
    const registry = new HeldStrings({ maxBytes });
    const records: InputRecord[] = [];
    const parser = createFramingParser({ onRecord: (record) => records.push(record) }, { skim, holdStrings: registry });
    const bytes = encode(line);
    for (let at = 0; at < bytes.length; at += chunk) parser.feed(bytes.subarray(at, at + chunk));
    parser.end();
    return { records, registry };
  }

  it("gives each canonical long string a placeholder whose bytes are its JSON text; the rest is read as usual", () => {
    const long = 'a "quoted" \\ line\n\u001b[0m 配置 '.repeat(4);
    const odd = "\\u00e9 escaped the long way, and long enough";
    const line = `{"type":"x","stdout":${JSON.stringify(long)},"other":${JSON.stringify(long)},"content":"${odd}","n":1}\n`;
    for (const chunk of [1, 7, line.length]) {
      const { records, registry } = read(line, chunk);
      const value = jsonValue<{ stdout: string; other: string; content: string; n: number }>(records[0]);
      expect(registry.keyOf(value.stdout) !== undefined).toBe(true);
      expect(new TextDecoder().decode(registry.bytes(registry.keyOf(value.stdout) as string))).toBe(JSON.stringify(long));
      expect(registry.text(value.stdout)).toBe(long);
      expect(value.other).toBe(long); // not a skim key
      expect(value.content).toBe("é escaped the long way, and long enough"); // not under a tool_result, and not canonical
      expect(value.n).toBe(1);
      expect(registry.size).toBe(1);
    }
  });

  it("holds copies of the caller's chunk, never views into it", () => {
    const long = "x".repeat(64);
    const line = encode(`{"stdout":"${long}"}\n`);
    const registry = new HeldStrings();
    const records: InputRecord[] = [];
    const parser = createFramingParser({ onRecord: (record) => records.push(record) }, { skim, holdStrings: registry });
    parser.feed(line);
    line.fill(0x20); // the caller reuses its buffer
    const value = jsonValue<{ stdout: string }>(records[0]);
    expect(registry.text(value.stdout)).toBe(long);
  });

  it("reads strings in full past the held bytes' cap", () => {
    const long = "y".repeat(64);
    const { records, registry } = read(`{"stdout":"${long}"}\n{"stdout":"${long}z"}\n`, 5, 100);
    const values = records.map((record) => jsonValue<{ stdout: string }>(record).stdout);
    expect(registry.keyOf(values[0]) !== undefined).toBe(true);
    expect(values[1]).toBe(`${long}z`);
  });
});
