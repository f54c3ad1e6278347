/**
 * Records, events and issues are identical whatever the chunking: whole, one byte at a time, or cut
 * at random places (fast-check shrinks a failure to the smallest set of cuts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { fc, test } from "../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { chunkEvery, splitAt } from "../helpers/chunks.ts";
import { readAll } from "../helpers/read.ts";
import { hasShared, listCaptures, noteSharedMissing, sharedPath } from "../helpers/shared.ts";

const ownFixtures = (): [string, Uint8Array][] => {
  const root = new URL("../fixtures/", import.meta.url);
  const out: [string, Uint8Array][] = [];
  for (const dir of readdirSync(root, { withFileTypes: true })) {
    if (!dir.isDirectory()) continue;
    // A store kept as a folder tree (OpenCode's older storage, Cursor's chats) is read through its store, not as a stream.
    for (const entry of readdirSync(new URL(`${dir.name}/`, root), { withFileTypes: true }))
      if (entry.isFile()) out.push([`${dir.name}/${entry.name}`, readFileSync(new URL(`${dir.name}/${entry.name}`, root))]);
  }
  return out;
};

noteSharedMissing();
const shared: [string, Uint8Array][] = hasShared
  ? [
      ...readdirSync(sharedPath("corpus/ndjson-hazards"))
        .filter((name) => !name.endsWith(".md") && !name.endsWith(".json"))
        .map((name): [string, Uint8Array] => [`hazards/${name}`, readFileSync(sharedPath("corpus/ndjson-hazards", name))]),
      ...listCaptures().map(([dialect, path]): [string, Uint8Array] => [`${dialect}/${path.split("/").pop()}`, readFileSync(path)]),
    ]
  : [];
const inputs = [...shared, ...ownFixtures()];

describe("chunk boundaries never change the output", () => {
  describe.each(inputs.map(([name, bytes]) => ({ name, bytes })))("$name", ({ bytes }) => {
    const whole = readAll([bytes]);
    it("one byte at a time", () => {
      expect(readAll(chunkEvery(bytes, 1))).toEqual(whole);
    });
    // Each run reads the whole input once, whatever its cuts: few runs of many cuts try more boundaries for less.
    test.prop([fc.array(fc.nat(), { maxLength: 64 })], { numRuns: 8 })("random cuts", (cuts) => {
      expect(readAll(splitAt(bytes, cuts))).toEqual(whole);
    });
  });
});

describe("any input gives events or issues, never a throw", () => {
  test.prop([fc.uint8Array({ maxLength: 400 })], { numRuns: 300 })("random bytes", (bytes) => {
    const result = readAll([bytes]);
    expect(Array.isArray(result.events)).toBe(true);
  });
  test.prop([fc.array(fc.oneof(fc.json(), fc.string(), fc.constant("{"), fc.constant("\r")), { maxLength: 20 })], { numRuns: 300 })(
    "random lines of JSON and text",
    (lines) => {
      const text = lines.join("\n");
      const result = readAll([text]);
      expect(readAll(chunkEvery(new TextEncoder().encode(text), 3))).toEqual(result);
    },
  );
});
