/**
 * The short commands, `usage` and `sessions`: over their caches they run in 0.2–0.3 s, and compiling our code again
 * was a tenth of that on every run. The build (scripts/build-cli.mjs) makes them one CommonJS script beside the ES
 * module bundle, dist/cli/bundle/short.cjs (short-entry.ts), and bin.ts runs them from it here, compiled with V8's
 * code cache: the code a run compiled is saved after it in the cache directory and handed to V8 the next time
 * (Node 20 has no code cache for ES modules; `module.enableCompileCache` came with Node 22).
 *
 * V8 takes a cache only from its own version and flags and for a source of the same length. The cache's name holds
 * the script's build (a hash of its text, which the build writes on its first line) and V8's version, so a changed
 * script never meets an old cache; a cache V8 turns down all the same is made again. The cache is only time: one
 * that cannot be read or written is left alone, and `--no-cache` neither reads nor writes it.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";
import { cacheDir, removeStale } from "../usage/cache-dir.ts";
import { EXIT } from "./exit.ts";

export const SHORT_COMMANDS = ["sessions", "usage"] as const;
export type ShortCommand = (typeof SHORT_COMMANDS)[number];

export function isShortCommand(name: string | undefined): name is ShortCommand {
  return SHORT_COMMANDS.some((short) => short === name);
}

/** What the built script exports (short-entry.ts). */
export interface ShortScript {
  run(name: ShortCommand, args: readonly string[]): Promise<number>;
}

/** The first line of the built script: `// agentstream short commands, build <hex>`. */
const BUILD_LINE = /^\/\/ agentstream short commands, build ([0-9a-f]{8,64})\n/;
const SCRIPT = fileURLToPath(new URL("./bundle/short.cjs", import.meta.url));

/**
 * V8's interrupt budget, four times Node 20's (66 KB of bytecode; a function is optimized after running through it
 * three times). Most of what a run over cached logs calls runs a few thousand times and is done before optimized
 * code would repay its compiling, which the compiler threads did on the second core beside the run's own work: the
 * re-runs took 7 % less wall (nothing changed, 93 files appended; 9 pairs each) and 12–19 % less CPU. A hot loop (a
 * first run's scan, a merge of every request) runs through four budgets in milliseconds: the first run took as
 * long (7 pairs). Set before the script is compiled: V8 keys its code cache by its flags.
 */
const INTERRUPT_BUDGET = 4 * 66 * 1024;

/**
 * Runs a short command from the built script and returns its exit code; undefined when there is no built script
 * (the sources run as they are): the caller then runs the command the ordinary way.
 */
export async function runShortCommand(
  name: ShortCommand,
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  script = SCRIPT,
): Promise<number | undefined> {
  const source = readOrUndefined(script, "utf8");
  if (source === undefined) return undefined;
  setFlagsFromString(`--interrupt-budget=${INTERRUPT_BUDGET}`);
  const compiled = compileCached(script, source, args.includes("--no-cache") ? undefined : cacheDir(env));
  const exitCode = await compiled.exports.run(name, args);
  // Only a run that did the command's work compiled what the next runs need: a cache made by `--help` or by a
  // mistyped option would be taken as it is and leave the rest to compile on every run.
  if (exitCode === EXIT.ok && !args.includes("--help") && !args.includes("-h")) compiled.saveCode();
  return exitCode;
}

interface Compiled {
  readonly exports: ShortScript;
  /** Saves the code compiled so far, unless V8 took the saved code as it was. */
  saveCode(): void;
}

/** Compiles and runs the CommonJS `source` of `file` with the code cache kept in `dir` (none when undefined). */
export function compileCached(file: string, source: string, dir: string | undefined): Compiled {
  const build = BUILD_LINE.exec(source)?.[1];
  const codeFile = dir === undefined || build === undefined ? undefined : join(dir, codeCacheName(build));
  const cachedData = codeFile === undefined ? undefined : readOwnFile(codeFile);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const module = { exports: {} as ShortScript };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    saveCode() {
      if (codeFile === undefined || (cachedData !== undefined && !script.cachedDataRejected)) return;
      saveCodeCache(codeFile, script.createCachedData());
    },
  };
}

const CODE_CACHE_PREFIX = "short-code-";

function codeCacheName(build: string): string {
  return `${CODE_CACHE_PREFIX}${build}-v8-${process.versions.v8}-${process.arch}.bin`;
}

/** Writes the cache whole under another name first (a run reading it meanwhile sees the old one), then drops the older ones. */
function saveCodeCache(file: string, code: Buffer): void {
  const dir = dirname(file);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(temporary, code, { mode: 0o600 });
    renameSync(temporary, file);
    removeStale(dir, (name) => name.startsWith(CODE_CACHE_PREFIX) && name.endsWith(".bin") && join(dir, name) !== file);
  } catch {
    removeStale(dir, (name) => join(dir, name) === temporary);
  }
}

function readOrUndefined(file: string, encoding: "utf8"): string | undefined {
  try {
    return readFileSync(file, encoding);
  } catch {
    return undefined;
  }
}

/**
 * The file's bytes if it is ours and no one else may write it, else undefined. A code cache is code: one that
 * another user could have written (a shared or world-writable $XDG_CACHE_HOME) is not run, but made again.
 * Checked on the open file, so it cannot be swapped between the check and the read.
 */
function readOwnFile(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const stats = fstatSync(fd);
    const uid = process.getuid?.();
    if (!stats.isFile() || (uid !== undefined && (stats.uid !== uid || (stats.mode & 0o022) !== 0))) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
