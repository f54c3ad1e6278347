/** Every framed record of every real capture, for detection tests ("claims no line of another agent"). */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { createNdjsonParser, type InputRecord } from "../../src/framing/ndjson/create-ndjson-parser.ts";
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
