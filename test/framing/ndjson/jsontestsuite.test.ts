import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Issue } from "../../../src/errors.ts";
import { createNdjsonParser, type InputRecord } from "../../../src/framing/ndjson/create-ndjson-parser.ts";
import { chunkEvery } from "../../helpers/chunks.ts";
import { hasShared, noteSharedMissing, sharedPath } from "../../helpers/shared.ts";

function readDocument(chunks: Uint8Array[]) {
  const records: InputRecord[] = [];
  const issues: Issue[] = [];
  const parser = createNdjsonParser({ onRecord: (r) => records.push(r), onIssue: (i) => issues.push(i) }, { framing: "document" });
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return { json: records.filter((r) => r.kind === "json").length, issues };
}

noteSharedMissing();
describe.skipIf(!hasShared)("JSONTestSuite through the record layer (../shared/corpus/jsontestsuite)", () => {
  const rows = hasShared
    ? readFileSync(sharedPath("corpus/jsontestsuite/EXPECTATIONS.tsv"), "utf8")
        .trim()
        .split("\n")
        .slice(1)
        .map((line) => line.split("\t"))
    : [];

  it.each(rows.map(([file, , , ours]) => [file as string, ours as string]))("%s: %s", (file, ours) => {
    const bytes = readFileSync(sharedPath("corpus/jsontestsuite", file));
    const whole = readDocument([bytes]);
    expect(readDocument(chunkEvery(bytes, 1))).toEqual(whole);
    const accepted = ours.split(",")[0] === "accept";
    // Where the expectation says skip:duplicate_key, our default keeps the record (last wins) and reports it.
    const expectedRecords = accepted || ours.includes("skip:duplicate_key") ? 1 : 0;
    expect(whole.json).toBe(expectedRecords);
    const expectsIssue = ours !== "accept";
    const warnings = whole.issues.filter((i) => i.severity !== "info" || i.code === "non-json-line");
    expect(warnings.length > 0).toBe(expectsIssue);
    if (ours.startsWith("fatal")) expect(whole.issues[0]?.severity).toBe("fatal");
    if (ours.includes("duplicate_key")) expect(whole.issues.map((i) => i.code)).toContain("duplicate-key");
    if (ours.includes("depth_exceeded")) expect(whole.issues.map((i) => i.code)).toContain("depth-exceeded");
  });
});
