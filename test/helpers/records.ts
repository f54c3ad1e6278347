/** Framed records for detection tests: built by hand, or every record of every real capture ("claims no line of another agent"). */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { createNdjsonParser, type InputRecord } from "../../src/framing/ndjson/create-ndjson-parser.ts";
import type { JsonObject } from "../../src/model/events.ts";
import { listCaptures, sharedPath } from "./shared.ts";

let cached: { file: string; record: InputRecord }[] | undefined;

/** Records of ../shared/fixtures/* as the framer hands them to detection (empty without ../shared). */
export function captureRecords(): { file: string; record: InputRecord }[] {
  if (cached !== undefined) return cached;
  const out: { file: string; record: InputRecord }[] = [];
  for (const [, path] of listCaptures()) {
    const file = relative(sharedPath("fixtures"), path);
    const parser = createNdjsonParser({ onRecord: (record) => out.push({ file, record }) });
    parser.feed(readFileSync(path));
    parser.end();
  }
  cached = out;
  return out;
}

/** A JSON record as the framer hands it to `detect` (line 1, with its text as written). */
export function jsonRecord(value: object, text = JSON.stringify(value)): InputRecord {
  return { kind: "json", value: value as JsonObject, text, line: 1, offset: 0, length: text.length };
}

/** A text line as the framer hands it to `detect`. */
export function textRecord(text: string): InputRecord {
  return { kind: "text", text, line: 1, offset: 0, length: text.length };
}
