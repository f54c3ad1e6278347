/**
 * Every real capture in ../shared/fixtures, read in place: the right dialect is detected, nothing
 * crashes, every event validates against the model's schema, and the events and the summary match
 * the reviewed goldens in test/golden/<dialect>/ (update with `npx vitest run -u`, then read the diff).
 */
import { basename, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { stringifyRecord } from "../../src/framing/stringify.ts";
import { validateEvent } from "../../src/validation/validate-event.ts";
import { readFile } from "../helpers/read.ts";
import { hasShared, listCaptures, noteSharedMissing, repoRoot, sharedPath } from "../helpers/shared.ts";

/** The dialect each fixture folder must be detected as (the non-JSON ones are read with --from). */
const EXPECTED_DIALECT: Record<string, string> = {};

noteSharedMissing();
describe.skipIf(!hasShared)("real captures (../shared/fixtures)", () => {
  const captures = listCaptures();
  it.each(captures.map(([dialect, path]) => [`${dialect}/${relative(sharedPath("fixtures", dialect), path)}`, dialect, path]))(
    "%s",
    async (_name, folder, path) => {
      const result = readFile(path);
      expect(result.dialect).toBe(EXPECTED_DIALECT[folder] ?? folder);
      for (const event of result.events) expect(validateEvent(event)).toEqual([]);
      const rel = relative(sharedPath("fixtures", folder), path);
      const golden = `${repoRoot}/test/golden/${folder}/${rel}`;
      await expect(`${result.events.map((e) => stringifyRecord(e)).join("\n")}\n`).toMatchFileSnapshot(`${golden}.events.ndjson`);
      await expect(`${JSON.stringify(result.summary, null, 2)}\n`).toMatchFileSnapshot(`${golden}.summary.json`);
      void basename;
    },
  );
});
