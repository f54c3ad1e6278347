/** Finding session files: the paths are the ones `join` makes (the caches are keyed by them), however the folder is named. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { discoverPaths } from "../../src/usage/discover.ts";
import { tempDir } from "../helpers/temp.ts";

describe("discoverPaths", () => {
  const cwd = process.cwd();
  afterEach(() => process.chdir(cwd));

  it("names each file as join(folder, …, name) would, for a folder given as '.', with a trailing separator, or with '..'", () => {
    const root = tempDir("discover");
    for (const file of ["projects/p/a.jsonl", "projects/p/sub/b.jsonl", "projects/q/c.jsonl", "projects/q/notes.txt"]) {
      mkdirSync(join(root, file, ".."), { recursive: true });
      writeFileSync(join(root, file), "{}\n");
    }
    process.chdir(root);
    const expected = (folder: string) =>
      ["projects/p/a.jsonl", "projects/p/sub/b.jsonl", "projects/q/c.jsonl"].map((file) =>
        join(folder, relative(resolve(folder), join(root, file))),
      );
    for (const folder of [".", "./", "projects", "projects/", "./projects", "projects/../projects", root, `${root}/`]) {
      const found = discoverPaths([folder]).files.map((file) => file.path);
      expect(found.sort()).toEqual(expected(folder).sort());
    }
  });
});
