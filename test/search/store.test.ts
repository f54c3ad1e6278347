/** The index is a cache: whatever is at its name (damaged, cut, not a database, a link, a FIFO), searches are right. */
import { execFileSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  closeSync,
  existsSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openSearchIndex } from "../../src/search/index.ts";
import { tempDir } from "../helpers/temp.ts";
import { twoSessions } from "./sessions.ts";

const NAME = "search-v4.sqlite";

/** A cache folder holding a good index of `root`'s sessions. */
function builtCache(root: string): string {
  const cache = tempDir("search-cache");
  const index = openSearchIndex({ env: {}, paths: [root], cacheDir: cache });
  index.update();
  index.close();
  return cache;
}

/** Opens the index again, searches, and says what it was told. */
function searchAgain(root: string, cache: string): { notices: string[]; found: string[]; location: string } {
  const notices: string[] = [];
  const index = openSearchIndex({ env: {}, paths: [root], cacheDir: cache, onNotice: (line) => notices.push(line) });
  try {
    const found = index.search({ text: "formatDue" }).hits.map((hit) => `${hit.sessionId} ${hit.field}`);
    return { notices, found, location: index.location };
  } finally {
    index.close();
  }
}

const expected = ["aaaa-1111 answer", "aaaa-1111 input"];

describe("the index as a cache", () => {
  it("removes the index of an older schema version", () => {
    const root = twoSessions().root;
    const cache = tempDir("search-cache");
    writeFileSync(join(cache, "search-v1.sqlite"), "an older layout");
    expect(searchAgain(root, cache).found).toEqual(expected);
    expect(existsSync(join(cache, "search-v1.sqlite"))).toBe(false);
  });

  it("is used again as it is when nothing is wrong", () => {
    const root = twoSessions().root;
    const cache = builtCache(root);
    expect(searchAgain(root, cache)).toEqual({ notices: [], found: expected, location: join(cache, NAME) });
    expect(statSync(join(cache, NAME)).mode & 0o777).toBe(0o600);
  });

  const damages: [string, (path: string) => void, RegExp][] = [
    [
      "flipped bytes (page headers)",
      (path) => {
        const fd = openSync(path, "r+");
        const page = Buffer.alloc(1);
        for (const at of [4096, 8192, 12288, 16384]) {
          readSync(fd, page, 0, 1, at);
          writeSync(fd, Buffer.from([(page[0] ?? 0) ^ 0xff]), 0, 1, at);
        }
        closeSync(fd);
      },
      /\(damaged\): made again$/,
    ],
    ["cut short", (path) => truncateSync(path, Math.floor(statSync(path).size / 3)), /\((damaged|not a database)\): made again$/],
    ["garbage", (path) => writeFileSync(path, Buffer.alloc(20_000, "garbage ")), /\(not a database\): made again$/],
    ["empty", (path) => writeFileSync(path, ""), /\(not a database\): made again$/],
    [
      "another database",
      (path) => {
        writeFileSync(path, "");
        const other = new Database(path);
        other.exec("CREATE TABLE x(y)");
        other.close();
      },
      /\(another version\): made again$/,
    ],
  ];
  for (const [what, damage, notice] of damages) {
    it(`is made again when ${what}, with one line saying so`, () => {
      const root = twoSessions().root;
      const cache = builtCache(root);
      damage(join(cache, NAME));
      const again = searchAgain(root, cache);
      expect(again.found).toEqual(expected);
      expect(again.notices).toHaveLength(1);
      expect(again.notices[0]).toMatch(notice);
      expect(searchAgain(root, cache)).toEqual({ notices: [], found: expected, location: join(cache, NAME) });
    });
  }

  it("never writes through a link at its name: the link is replaced, its target left as it was", () => {
    const root = twoSessions().root;
    const cache = join(tempDir("search-cache"), "agentstream");
    mkdirSync(cache);
    const elsewhere = join(tempDir("search-elsewhere"), "precious.txt");
    writeFileSync(elsewhere, "not yours");
    symlinkSync(elsewhere, join(cache, NAME));
    const again = searchAgain(root, cache);
    expect(again.found).toEqual(expected);
    expect(again.notices).toEqual([`agentstream: the search index ${join(cache, NAME)} could not be used (a symbolic link): made again`]);
    expect(readFileSync(elsewhere, "utf8")).toBe("not yours");
    expect(lstatSync(join(cache, NAME)).isFile()).toBe(true);
  });

  it("never waits on a FIFO at its name", () => {
    const root = twoSessions().root;
    const cache = tempDir("search-cache");
    execFileSync("mkfifo", [join(cache, NAME)]);
    const again = searchAgain(root, cache);
    expect(again.found).toEqual(expected);
    expect(again.notices[0]).toMatch(/\(not a regular file\): made again$/);
    expect(lstatSync(join(cache, NAME)).isFile()).toBe(true);
  });

  it("keeps the index in memory when what is at its name cannot be removed (a folder)", () => {
    const root = twoSessions().root;
    const cache = tempDir("search-cache");
    mkdirSync(join(cache, NAME, "inside"), { recursive: true });
    const again = searchAgain(root, cache);
    expect(again.found).toEqual(expected);
    expect(again.location).toBe(":memory:");
    expect(again.notices[1]).toMatch(/the index is kept in memory for this run$/);
  });

  it("is made again when SQLite finds it damaged while it is in use, and the search is answered", () => {
    const root = twoSessions().root;
    const cache = tempDir("search-cache");
    const notices: string[] = [];
    const index = openSearchIndex({ env: {}, paths: [root], cacheDir: cache, onNotice: (line) => notices.push(line) });
    try {
      index.update();
      // Every page but the first (the schema) gets a page type no b-tree has; the change counter tells SQLite its cache is stale.
      const path = join(cache, NAME);
      const fd = openSync(path, "r+");
      for (let at = 4096; at < statSync(path).size; at += 4096) writeSync(fd, Buffer.from([0x55]), 0, 1, at);
      const counter = Buffer.alloc(4);
      readSync(fd, counter, 0, 4, 24);
      counter.writeUInt32BE(counter.readUInt32BE(0) + 1);
      writeSync(fd, counter, 0, 4, 24);
      closeSync(fd);
      expect(index.search({ text: "formatDue" }).hits.map((hit) => `${hit.sessionId} ${hit.field}`)).toEqual(expected);
      expect(notices).toEqual([`agentstream: the search index ${path} is damaged: made again`]);
    } finally {
      index.close();
    }
  });
});
