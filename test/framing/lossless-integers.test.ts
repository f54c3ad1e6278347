/**
 * Integers beyond 2^53 survive: the framer keeps their digits (LosslessInteger) and every writer
 * writes them back digit for digit, in output its own validator accepts.
 */
import { describe, expect, it } from "vitest";
import { stringifyRecord } from "../../src/framing/stringify.ts";
import { LosslessInteger } from "../../src/model/lossless-integer.ts";
import { createNdjsonParser, type InputRecord } from "../../src/framing/ndjson/create-ndjson-parser.ts";
import { formatSpecs } from "../../src/formats/index.ts";
import { outputFormats } from "../../src/output-formats.ts";
import type { Issue } from "../../src/errors.ts";
import { agentstream } from "../../src/formats/agentstream/decode.ts";
import { convertEvents, readBack, validateFormat } from "../helpers/convert.ts";
import { readFile } from "../helpers/read.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";

function parse(text: string): { records: InputRecord[]; issues: Issue[] } {
  const records: InputRecord[] = [];
  const issues: Issue[] = [];
  const parser = createNdjsonParser({ onRecord: (r) => records.push(r), onIssue: (i) => issues.push(i) });
  parser.feed(text);
  parser.end();
  return { records, issues };
}

function parsedValue(text: string): unknown {
  const [record] = parse(`${text}\n`).records;
  if (record?.kind !== "json") throw new Error(`not a JSON record: ${text}`);
  return record.value;
}

describe("the framer keeps integers beyond 2^53 as written", () => {
  it.each([
    ['{"id":1104763548210798038}', '{"id":1104763548210798038}'],
    [
      '{"a":[1,-9007199254740993,{"b":12345678901234567890}],"c":"1104763548210798038"}',
      '{"a":[1,-9007199254740993,{"b":12345678901234567890}],"c":"1104763548210798038"}',
    ],
    [
      '{"k\\"ey":[[18446744073709551615]],"safe":9007199254740991,"float":1.0e+28}',
      '{"k\\"ey":[[18446744073709551615]],"safe":9007199254740991,"float":1e+28}',
    ],
    [
      '{ "spaced" : 123456789012345678901 , "n" : [ 0 , 99999999999999999999 ] }',
      '{"spaced":123456789012345678901,"n":[0,99999999999999999999]}',
    ],
  ])("%s keeps its digits", (text, expected) => {
    expect(stringifyRecord(parsedValue(text))).toBe(expected);
  });

  it("puts a LosslessInteger only where JSON.parse rounded, and reports it as info", () => {
    const { records, issues } = parse('{"big":1104763548210798038,"safe":9007199254740991,"text":"1104763548210798038"}\n');
    const value = (records[0] as { value: Record<string, unknown> }).value;
    expect(value.big).toBeInstanceOf(LosslessInteger);
    expect((value.big as LosslessInteger).source).toBe("1104763548210798038");
    expect(value.safe).toBe(9007199254740991);
    expect(value.text).toBe("1104763548210798038");
    expect(issues.filter((i) => i.code === "unsafe-integer").map((i) => i.severity)).toEqual(["info"]);
  });

  it("leaves the kept value of a repeated key alone", () => {
    const value = parsedValue('{"id":1104763548210798038,"id":7}') as Record<string, unknown>;
    expect(value.id).toBe(7);
  });

  it("a plain JSON.stringify still sees a number (the nearest double)", () => {
    expect(JSON.stringify({ id: new LosslessInteger("1104763548210798038") })).toBe('{"id":1104763548210798100}');
    expect(stringifyRecord({ id: new LosslessInteger("1104763548210798038") }, 2)).toBe('{\n  "id": 1104763548210798038\n}');
  });

  it("finds a LosslessInteger behind an object's own toJSON, deep down, or in an array; a record without one is plain JSON", () => {
    const big = new LosslessInteger("1104763548210798038");
    const wrapped = { toJSON: () => ({ inner: [big] }) };
    expect(stringifyRecord({ w: wrapped })).toBe('{"w":{"inner":[1104763548210798038]}}');
    let deep: unknown = big;
    for (let i = 0; i < 300; i++) deep = [deep];
    expect(stringifyRecord(deep)).toBe(`${"[".repeat(300)}1104763548210798038${"]".repeat(300)}`);
    expect(stringifyRecord({ a: [1, "x", { b: null }], d: new Date(0) })).toBe(
      JSON.stringify({ a: [1, "x", { b: null }], d: new Date(0) }),
    );
    expect(stringifyRecord(undefined)).toBe("null");
  });

  it("a string that looks like a placeholder stays a string", () => {
    const value = { s: "\u0000lossless-0:0", n: new LosslessInteger("-12345678901234567890") };
    expect(stringifyRecord(value)).toBe('{"s":"\\u0000lossless-0:0","n":-12345678901234567890}');
  });
});

describe.skipIf(!hasShared)("the real Codex capture with history_log_id 1104763548210798038", () => {
  const capture = sharedPath("fixtures/codex/legacy_proto_acplazybridge_wrapper_test_20250927.jsonl");
  const validated = new Set(formatSpecs.map((spec) => spec.name));

  it.each(outputFormats.map((format) => [format.name]))("%s writes the digits exactly, in output its validator accepts", (format) => {
    const { events } = readFile(capture);
    const text = convertEvents(events, format);
    expect(text).not.toContain("1104763548210798100");
    // codex, otlp, text and markdown do not carry session details; every writer that does keeps the digits.
    if (!["codex", "otlp", "text", "markdown"].includes(format)) expect(text).toContain("1104763548210798038");
    if (validated.has(format)) expect(validateFormat(format, text)).toEqual([]);
  });

  it("agentstream output read back keeps the digits when written again", () => {
    const { events } = readFile(capture);
    const back = readBack(convertEvents(events, "agentstream"), agentstream);
    expect(convertEvents(back.events, "agentstream")).toContain('"history_log_id":1104763548210798038');
  });
});
