/**
 * Detection does not depend on the first line: a stream joined late (`tail -f`, a log rotated
 * mid-session) is still recognised from the records that remain.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { readAll } from "../helpers/read.ts";
import { hasShared, listCaptures } from "../helpers/shared.ts";

/** Qwen Code is Claude-compatible: without its init line nothing tells them apart, and claude is the right reading. */
const ALSO_ACCEPTED: Record<string, string[]> = { qwen: ["claude"] };

describe.skipIf(!hasShared)("detection from the middle of a stream", () => {
  const cases = listCaptures()
    .filter(([, path]) => /\.(jsonl|ndjson)$/.test(path))
    .flatMap(([dialect, path]) => {
      const lines = readFileSync(path, "utf8").split("\n");
      return [1, 2, 3]
        .filter((k) => lines.length > k + 2)
        .map((k): [string, string, string, number] => [
          `${dialect}/${path.split("/").pop()} without its first ${k} line(s)`,
          dialect,
          path,
          k,
        ]);
    });
  it.each(cases)("%s", (_name, dialect, path, k) => {
    const text = readFileSync(path, "utf8").split("\n").slice(k).join("\n");
    const { dialect: detected } = readAll([text]);
    expect([dialect, ...(ALSO_ACCEPTED[dialect] ?? [])]).toContain(detected);
  });
});
