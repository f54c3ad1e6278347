import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createNdjsonParser, type InputRecord, type NdjsonOptions } from "../../../src/framing/ndjson/create-ndjson-parser.ts";
import type { Issue } from "../../../src/errors.ts";
import { chunkEvery } from "../../helpers/chunks.ts";
import { hasShared, noteSharedMissing, sharedPath } from "../../helpers/shared.ts";

interface Expectation {
  mode: "ndjson" | "json-seq" | "fatal";
  records: number;
  diags: [string, number][];
}

function frame(chunks: Uint8Array[], options: NdjsonOptions = {}) {
  const records: InputRecord[] = [];
  const issues: Issue[] = [];
  const parser = createNdjsonParser({ onRecord: (r) => records.push(r), onIssue: (i) => issues.push(i) }, options);
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return { records, issues, json: records.filter((r) => r.kind === "json"), framing: parser.framing };
}

/** Where our default behaviour deliberately differs from expectations.json (docs/architecture.md says why). */
const DEVIATIONS: Record<string, { options: NdjsonOptions; defaultRecords: number }> = {
  // Codex 0.155 writes `id` twice in web_search items: by default we keep such records (last value wins).
  "duplicate-keys.ndjson": { options: { duplicateKeys: "reject" }, defaultRecords: 3 },
  // One `__proto__` key must not hide the rest of a record (a sibling tool call): by default only the key goes.
  "proto-keys.ndjson": { options: { forbiddenKeys: "reject" }, defaultRecords: 5 },
};

noteSharedMissing();
describe.skipIf(!hasShared)("NDJSON hazard corpus (../shared/corpus/ndjson-hazards)", () => {
  const expectations = hasShared
    ? (JSON.parse(readFileSync(sharedPath("corpus/ndjson-hazards/expectations.json"), "utf8")).files as Record<string, Expectation>)
    : {};
  const cases = Object.entries(expectations);

  it.each(cases)("%s: records and issue lines match under every chunking", (name, expected) => {
    const bytes = readFileSync(sharedPath("corpus/ndjson-hazards", name));
    const deviation = DEVIATIONS[name];
    // The hazard file is an NDJSON file: frame it as one (auto would read a pretty-printed start as Cline's framing).
    const options: NdjsonOptions = { framing: expected.mode === "json-seq" ? "auto" : "ndjson", ...deviation?.options };
    const expectedLines = [...new Set(expected.diags.map(([, line]) => line))].sort((a, b) => a - b);
    const results = [frame([bytes], options), frame(chunkEvery(bytes, 1), options), frame(chunkEvery(bytes, 7), options)];
    for (const result of results) {
      expect(result.json.length).toBe(expected.records);
      const lines = [...new Set(result.issues.map((i) => i.line ?? 0))].sort((a, b) => a - b);
      expect(lines).toEqual(expectedLines);
      if (expected.mode === "fatal") expect(result.issues[0]?.severity).toBe("fatal");
      if (expected.mode === "json-seq") expect(result.framing).toBe("json-seq");
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
    if (deviation) expect(frame([bytes], { framing: "ndjson" }).json.length).toBe(deviation.defaultRecords);
  });

  it("overlong and surrogate UTF-8 never decode to '/' or NUL", () => {
    for (const name of ["overlong-slash.ndjson", "overlong-nul.ndjson"]) {
      const { json } = frame([readFileSync(sharedPath("corpus/ndjson-hazards", name))]);
      const text = JSON.stringify(json[0]?.value);
      expect(text).not.toMatch(/\\u0000/);
      expect(json[0]?.lossy).toBe(true);
      if (name === "overlong-slash.ndjson") expect(Object.values(json[0]?.value ?? {}).join("")).not.toContain("/");
    }
  });
});
