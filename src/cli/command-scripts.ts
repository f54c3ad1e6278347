/**
 * The commands run from CommonJS scripts compiled with V8's code cache: the code a run compiled is saved after it
 * in the cache folder and handed to V8 the next time, so a run does not compile the command again (Node 20 has no
 * code cache for ES modules; `module.enableCompileCache` came with Node 22). `render` of a short stream started in
 * 0.18 s and now in 0.13 s (`node -e ""`: 0.08 s); `usage` over its caches, 0.2–0.3 s, saved a tenth.
 * scripts/build-cli.mjs builds them beside the ES module bundle: `usage` and `sessions`, short by design, in one
 * small script of their own (short-entry.ts), every other command in another (commands-entry.ts). bin.ts runs a
 * command through `runCommandScript`; what names no command (help, the version, a bare file) goes to run.ts.
 *
 * V8 takes a cache only from its own version and flags and for a source of the same length. A cache's name holds
 * its command, its script's build (a hash of the script's text, which the build writes on the first line) and
 * V8's version, so a changed script never meets an old cache; a cache V8 turns down all the same is made again.
 * The cache is only time: one that cannot be read or written is left alone, and `--no-cache` neither reads nor
 * writes it.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { cacheDir, removeStale } from "../usage/cache-dir.ts";
import { EXIT } from "./exit.ts";
import type { CliIo } from "./io.ts";
import { asksForHelp, ownArguments } from "./own-arguments.ts";

/**
 * V8's interrupt budget, four times Node 20's (66 KB of bytecode; a function is optimized after running through it
 * three times). Most of what a run over cached logs calls runs a few thousand times and is done before optimized
 * code would repay its compiling, which the compiler threads did on the second core beside the run's own work: the
 * re-runs took 7 % less wall (nothing changed, 93 files appended; 9 pairs each) and 12–19 % less CPU. A hot loop (a
 * first run's scan, a merge of every request) runs through four budgets in milliseconds: the first run took as
 * long (7 pairs). The per-event commands keep V8's own: their loops run for the whole input.
 */
const INTERRUPT_BUDGET = 4 * 66 * 1024;

/**
 * The per-event commands run without TurboFan's inlining. A run over a stream optimizes a hundred functions of the
 * pipeline within its first half second; with inlining, their compiling took ~0.5 s of the second core (the
 * sanitizer, display width and the skim's cuts inlined whole, some compiled three times over after deopts), and
 * the main thread ran on waiting for its reads and in unoptimized code meanwhile. Without it, on the bench's 64 MB
 * Claude stream: `render --mode full` 0.80–0.92 → 0.72–0.83 s, `summary --json` 0.56–0.63 → 0.53–0.59 s (CPU 10–15 %
 * less), `convert --to agentstream` the same; four times the stream in one run, the same or faster, so the
 * optimized code is not slower for it (docs/benchmarks.md). Setting a flag costs loading node:v8, ~2 ms.
 */
const NO_INLINING = "--no-turbo-inlining";

export interface CommandScript {
  /** The script in dist/cli/bundle/. */
  readonly file: string;
  readonly commands: readonly string[];
  /** Set before the script is compiled: V8 keys its code cache by its flags. */
  readonly v8Flags: readonly string[];
  /**
   * Its commands are over when they return: they read and write their files synchronously and leave no handle,
   * timer or stream behind, so bin.ts exits once their output is written.
   */
  readonly endsOnReturn: boolean;
}

export const COMMAND_SCRIPTS: readonly CommandScript[] = [
  { file: "short.cjs", commands: ["sessions", "usage"], v8Flags: [`--interrupt-budget=${INTERRUPT_BUDGET}`], endsOnReturn: true },
  {
    file: "commands.cjs",
    commands: ["run", "render", "serve", "convert", "summary", "html", "validate", "publish", "tail", "otlp", "schema", "formats"],
    v8Flags: [NO_INLINING],
    endsOnReturn: false,
  },
];

/** The script `name` runs from; undefined when `name` is no command (`--help`, a file to render). */
export function scriptOf(name: string | undefined): CommandScript | undefined {
  return COMMAND_SCRIPTS.find((script) => script.commands.some((command) => command === name));
}

/** What a built script exports (short-entry.ts, commands-entry.ts). */
export interface ScriptExports {
  /** Runs command `name`; on the process's own streams and files unless given `io` (bench/method.mjs). */
  run(name: string, args: readonly string[], io?: CliIo): Promise<number>;
}

/** The first line of a built script: `// agentstream <file>, build <hex>`. */
const BUILD_LINE = /^\/\/ agentstream [\w.-]+, build ([0-9a-f]{8,64})\n/;

export interface ScriptRunOptions {
  /** For the cache folder: $XDG_CACHE_HOME, $HOME. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The command's streams and files. @defaultValue the process's own */
  readonly io?: CliIo;
  /** The built script. @defaultValue dist/cli/bundle/<script.file> */
  readonly path?: string;
}

/**
 * Runs command `name` from its built script and returns its exit code; undefined when the script is not there
 * (the sources run as they are): the caller then runs the command the ordinary way.
 */
export async function runCommandScript(
  script: CommandScript,
  name: string,
  args: readonly string[],
  { env, io, path = fileURLToPath(new URL(`./bundle/${script.file}`, import.meta.url)) }: ScriptRunOptions,
): Promise<number | undefined> {
  const source = readOrUndefined(path, "utf8");
  if (source === undefined) return undefined;
  // node:v8 is loaded only when flags are set: it takes ~2 ms to load, which a `render` need not pay.
  if (script.v8Flags.length > 0) {
    const v8: typeof import("node:v8") = createRequire(path)("node:v8");
    for (const flag of script.v8Flags) v8.setFlagsFromString(flag);
  }
  const compiled = compileCached(path, source, ownArguments(args).includes("--no-cache") ? undefined : cacheDir(env), name);
  const exitCode = await compiled.exports.run(name, args, io);
  // Only a run that did the command's work compiled what the next runs need: a cache made by `--help` or by a
  // mistyped option would be taken as it is and leave the rest to compile on every run.
  if (exitCode === EXIT.ok && !asksForHelp(args)) compiled.saveCode();
  return exitCode;
}

interface Compiled {
  readonly exports: ScriptExports;
  /** Saves the code compiled so far, unless V8 took the saved code as it was. */
  saveCode(): void;
}

/**
 * Compiles and runs the CommonJS `source` of `file` with the code cache of `command`'s runs kept in `dir` (none
 * when undefined): each command has its own, made after its own run (one script holds many commands).
 */
export function compileCached(file: string, source: string, dir: string | undefined, command: string): Compiled {
  const build = BUILD_LINE.exec(source)?.[1];
  const prefix = `code-${command}-`;
  const codeFile =
    dir === undefined || build === undefined ? undefined : join(dir, `${prefix}${build}-v8-${process.versions.v8}-${process.arch}.bin`);
  const cachedData = codeFile === undefined ? undefined : readOwnFile(codeFile);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const module = { exports: {} as ScriptExports };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    saveCode() {
      if (codeFile === undefined || (cachedData !== undefined && !script.cachedDataRejected)) return;
      saveCodeCache(codeFile, prefix, script.createCachedData());
    },
  };
}

/**
 * Writes the cache whole under another name first (a run reading it meanwhile sees the old one), then drops the
 * same command's older ones (`prefix`: another build or V8).
 */
function saveCodeCache(file: string, prefix: string, code: Buffer): void {
  const dir = dirname(file);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(temporary, code, { mode: 0o600 });
    renameSync(temporary, file);
    removeStale(dir, (name) => name.startsWith(prefix) && name.endsWith(".bin") && join(dir, name) !== file);
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
