/**
 * The one way a test makes a temporary folder: `tempDir("usage")` is a fresh `agentstream-usage-XXXXXX`, removed
 * (recursive, force) when the test that made it finishes, or when the test file ends if it was made outside a test
 * (module scope, a describe body, beforeAll) or with `{ until: "file" }`. A folder a child process may still write
 * into after its test (a killed agent, a spool a later test reads) asks for `"file"`, and so do `it.concurrent`
 * tests (vitest's global `onTestFinished` cannot tell which concurrent test is running).
 *
 * The folders are made in the run's root (`agentstream-test-run-XXXXXX` under os.tmpdir(), made by
 * test/global-setup.ts and removed when the run ends): a net for what a file could not remove, since vitest runs no
 * `afterAll` in a file whose tests all skip, nor in a worker that crashed.
 *
 * Why the file-level hook is registered here, at import: vitest runs every test file in a fresh module graph
 * (isolate, the default, on in vitest.config.ts), so this module's body runs once per file while the file is
 * being collected, and an `afterAll` called then belongs to the file's root suite. An `afterAll` called later
 * (inside a running test) would attach to nothing that still runs, and `onTestFinished` only works inside a
 * test, hence the two paths.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, inject, onTestFinished } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's temporary root, made and removed by test/global-setup.ts. */
    tempRoot: string;
  }
}

const untilFileEnd = new Set<string>();

/** test/global-setup.ts's root for this run, else (a vitest config without it) os.tmpdir(). */
function runRoot(): string {
  const root = inject("tempRoot");
  return typeof root === "string" && root !== "" ? root : tmpdir();
}

function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Removes every folder kept until the file ends. */
function removeFileTempDirs(): void {
  for (const dir of untilFileEnd) removeDir(dir);
  untilFileEnd.clear();
}

afterAll(removeFileTempDirs);

export interface TempDirOptions {
  /** "test" (the default inside a test): removed when the test finishes; "file": when the test file ends. */
  readonly until?: "test" | "file";
}

/** True when `onTestFinished` accepted the removal, i.e. we are inside a running test. */
function removeWhenTestFinishes(dir: string): boolean {
  try {
    onTestFinished(() => removeDir(dir));
    return true;
  } catch {
    // Outside a test (module scope, describe, beforeAll/afterAll): vitest refuses the hook.
    return false;
  }
}

/** A fresh folder `agentstream-<name>-XXXXXX` under os.tmpdir(), removed for the caller (see above). */
export function tempDir(name: string, options: TempDirOptions = {}): string {
  const dir = mkdtempSync(join(runRoot(), `agentstream-${name}-`));
  if (options.until === "file" || !removeWhenTestFinishes(dir)) untilFileEnd.add(dir);
  return dir;
}

/** The variables code under test falls back to for its own folders: the spool, the usage cache, the run registry. */
const HOME_VARIABLES = ["HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"] as const;

/**
 * Points HOME and the XDG folders at a fresh temporary home for the current test file, so a command a test lets
 * fall back to its defaults (~/.local/state/agentstream/spool, ~/.cache/agentstream, $XDG_RUNTIME_DIR/agentstream)
 * writes there, and the home is removed with the file's other folders. Child processes spawned with process.env
 * inherit it. Called for every file by test/helpers/isolate-home.ts (vitest's setupFiles).
 */
export function isolateHome(): void {
  const home = tempDir("home");
  const saved = HOME_VARIABLES.map((name) => [name, process.env[name]] as const);
  process.env.HOME = home;
  process.env.XDG_CACHE_HOME = join(home, ".cache");
  process.env.XDG_STATE_HOME = join(home, ".local", "state");
  process.env.XDG_RUNTIME_DIR = join(home, "run");
  afterAll(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
}
