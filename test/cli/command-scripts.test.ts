/**
 * The commands' script loader (src/cli/command-scripts.ts) over scripts of our own: compiled with V8's code cache
 * kept in a folder, a cache made once and taken after, one V8 turns down made again, one per command and per build
 * of the script.
 */
import { chmodSync, chownSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMAND_SCRIPTS, compileCached, runCommandScript } from "../../src/cli/command-scripts.ts";
import { tempDir } from "../helpers/temp.ts";

/** A built script as scripts/build-cli.mjs writes one: its build on the first line, then CommonJS. */
const script = (build: string, answer: number): string =>
  `// agentstream test.cjs, build ${build}\n"use strict";\n` +
  `function answer() { return ${answer}; }\n` +
  `exports.run = async (name, args) => answer() + args.length;\n` +
  `exports.strict = (function () { return this === undefined; })();\n`;

const codeFiles = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith("code-")) : []);

let loads = 0;
/** Each load names another file: V8 would otherwise find the script compiled already in this process, and not look at the cache. */
function load(dir: string | undefined, source: string, command = "usage") {
  const compiled = compileCached(`/nowhere/script-${++loads}.cjs`, source, dir, command);
  return { compiled, run: () => compiled.exports.run("usage", ["a"]) };
}

describe("a command script's code cache", () => {
  it("is made after the first run, taken as it is after, and kept private", async () => {
    const dir = join(tempDir("code-cache"), "agentstream");
    const first = load(dir, script("0123456789abcdef", 41));
    expect(await first.run()).toBe(42);
    expect((first.compiled.exports as unknown as { strict: boolean }).strict).toBe(true);
    first.compiled.saveCode();
    const [name] = codeFiles(dir);
    expect(name).toMatch(new RegExp(`^code-usage-0123456789abcdef-v8-.+-${process.arch}\\.bin$`));
    const file = join(dir, name ?? "");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const made = statSync(file);

    const second = load(dir, script("0123456789abcdef", 41));
    expect(await second.run()).toBe(42);
    second.compiled.saveCode();
    // Taken: not written again (a write replaces the file by another).
    expect(statSync(file).ino).toBe(made.ino);
    expect(codeFiles(dir)).toEqual([name]);
  });

  it("is made again when V8 turns it down, and the run is the same", async () => {
    const dir = tempDir("code-cache");
    load(dir, script("00000000000000aa", 1)).compiled.saveCode();
    const [name] = codeFiles(dir);
    const file = join(dir, name ?? "");
    writeFileSync(file, Buffer.alloc(4096, 7));
    const again = load(dir, script("00000000000000aa", 1));
    expect(await again.run()).toBe(2);
    again.compiled.saveCode();
    expect(readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
    // The cache made again is taken.
    const remade = statSync(file).ino;
    const third = load(dir, script("00000000000000aa", 1));
    expect(await third.run()).toBe(2);
    third.compiled.saveCode();
    expect(statSync(file).ino).toBe(remade);
  });

  it("is not run when someone else could have written it (another owner, or writable by others): it is made again", async () => {
    const dir = tempDir("code-cache");
    load(dir, script("00000000000000dd", 1)).compiled.saveCode();
    const file = join(dir, codeFiles(dir)[0] ?? "");
    const writableByOthers = statSync(file).ino;
    chmodSync(file, 0o666);
    const again = load(dir, script("00000000000000dd", 1));
    expect(await again.run()).toBe(2);
    again.compiled.saveCode();
    expect(statSync(file).ino).not.toBe(writableByOthers);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    if (process.getuid?.() !== 0) return; // only root can give a file away
    const othersFile = statSync(file).ino;
    chownSync(file, 4242, 4242);
    const third = load(dir, script("00000000000000dd", 1));
    third.compiled.saveCode();
    expect(statSync(file).ino).not.toBe(othersFile);
    expect(statSync(file).uid).toBe(0);
  });

  it("belongs to one build: a script of the same length built otherwise runs its own code, and the old cache goes", async () => {
    const dir = tempDir("code-cache");
    const before = load(dir, script("00000000000000b1", 5));
    expect(await before.run()).toBe(6);
    before.compiled.saveCode();
    const after = load(dir, script("00000000000000b2", 7));
    expect(script("00000000000000b1", 5).length).toBe(script("00000000000000b2", 7).length);
    expect(await after.run()).toBe(8);
    after.compiled.saveCode();
    expect(codeFiles(dir)).toEqual([codeFiles(dir).find((n) => n.includes("00000000000000b2"))]);
  });

  it("is not kept for a script without a build, nor without a folder, and a folder that cannot be written costs nothing", async () => {
    const dir = tempDir("code-cache");
    const unbuilt = load(dir, script("x", 1).replace(/^.*\n/, ""));
    expect(await unbuilt.run()).toBe(2);
    unbuilt.compiled.saveCode();
    expect(codeFiles(dir)).toEqual([]);
    const nowhere = load(undefined, script("00000000000000c1", 1));
    nowhere.compiled.saveCode();
    const blocked = join(dir, "blocked");
    writeFileSync(blocked, "a file where the folder would be");
    const unwritable = load(join(blocked, "agentstream"), script("00000000000000c1", 1));
    expect(await unwritable.run()).toBe(2);
    expect(() => unwritable.compiled.saveCode()).not.toThrow();
    const readOnly = join(dir, "read-only");
    load(readOnly, script("00000000000000c2", 1)).compiled.saveCode();
    chmodSync(readOnly, 0o500);
    try {
      expect(() => load(readOnly, script("00000000000000c3", 1)).compiled.saveCode()).not.toThrow();
      expect(codeFiles(readOnly).every((n) => !n.endsWith(".tmp"))).toBe(true);
    } finally {
      chmodSync(readOnly, 0o700);
    }
  });

  it("is one per command: another command of the same script makes its own, and keeps the first", async () => {
    const dir = tempDir("code-cache");
    load(dir, script("00000000000000ee", 1), "render").compiled.saveCode();
    load(dir, script("00000000000000ee", 1), "convert").compiled.saveCode();
    expect(
      codeFiles(dir)
        .map((n) => n.split("-")[1])
        .sort(),
    ).toEqual(["convert", "render"]);
    // A new build of the script replaces each command's own, not the other's.
    load(dir, script("00000000000000ef", 1), "render").compiled.saveCode();
    expect(codeFiles(dir).sort()).toEqual([
      expect.stringMatching(/^code-convert-00000000000000ee-/),
      expect.stringMatching(/^code-render-00000000000000ef-/),
    ]);
  });

  it("is not there without a built script: the command then runs the ordinary way", async () => {
    const [short] = COMMAND_SCRIPTS;
    if (short === undefined) throw new Error("no script");
    expect(await runCommandScript(short, "usage", [], { env: {}, path: join(tempDir("code-cache"), "short.cjs") })).toBeUndefined();
  });
});
