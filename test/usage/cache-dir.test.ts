/** The cache folder (src/usage/cache-dir.ts): where it is, and how files of older layouts and builds leave it. */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cacheDir, olderVersion, removeStale } from "../../src/usage/cache-dir.ts";
import { tempDir } from "../helpers/temp.ts";

describe("the cache folder", () => {
  it("is $XDG_CACHE_HOME/agentstream, else ~/.cache/agentstream, else none", () => {
    expect(cacheDir({ XDG_CACHE_HOME: "/x", HOME: "/h" })).toBe(join("/x", "agentstream"));
    expect(cacheDir({ HOME: "/h" })).toBe(join("/h", ".cache", "agentstream"));
    expect(cacheDir({})).toBeUndefined();
  });

  it("tells a file of an older layout by its prefix and version", () => {
    expect(olderVersion("usage-v6.bin", "usage-v", 7)).toBe(true);
    expect(olderVersion("usage-v1.json", "usage-v", 7)).toBe(true);
    expect(olderVersion("usage-v7.bin", "usage-v", 7)).toBe(false);
    expect(olderVersion("usage-v10.bin", "usage-v", 7)).toBe(false);
    expect(olderVersion("usage-v6.bin.123.tmp", "usage-v", 7)).toBe(false);
    expect(olderVersion("usage-result-v5.bin", "usage-v", 7)).toBe(false);
    expect(olderVersion("usage-vx.bin", "usage-v", 7)).toBe(false);
  });

  it("loses the stale files only, and nothing throws where there is no folder", () => {
    const dir = tempDir("cache-dir");
    for (const name of ["usage-v6.bin", "usage-v7.bin", "notes.txt", "usage-v2.json"]) writeFileSync(join(dir, name), "x");
    mkdirSync(join(dir, "usage-v3.bin"));
    removeStale(dir, (name) => olderVersion(name, "usage-v", 7));
    // A folder of a stale name is not a file to remove: it stays.
    expect(readdirSync(dir).sort()).toEqual(["notes.txt", "usage-v3.bin", "usage-v7.bin"]);
    expect(() => removeStale(join(dir, "none"), () => true)).not.toThrow();
    expect(existsSync(join(dir, "none"))).toBe(false);
  });
});
