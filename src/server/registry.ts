/**
 * Where running `agentstream run --serve` servers say they are, so `agentstream serve` on the same
 * machine can list and stream their sessions: one file per run in a per-user folder
 * ($XDG_RUNTIME_DIR/agentstream/runs, else the temporary folder's agentstream-<uid>/runs), the
 * folder 0700 and each file 0600 (a file holds its server's token). A file whose process is gone
 * is ignored and removed.
 */
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** One registered run. */
export interface RegisteredRun {
  readonly runId: string;
  readonly pid: number;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  readonly token: string;
  /** The agent's command name, for the list until its events say more. */
  readonly command: string;
}

/** The registry folder for this user. */
export function registryDir(env: Readonly<Record<string, string | undefined>>): string {
  const runtime = env.XDG_RUNTIME_DIR;
  return runtime !== undefined && runtime !== ""
    ? join(runtime, "agentstream", "runs")
    : join(tmpdir(), `agentstream-${process.getuid?.() ?? "user"}`, "runs");
}

/** Writes this run's file; returns the function that removes it. */
export function registerRun(dir: string, run: RegisteredRun): () => void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = join(dir, `${run.runId}.json`);
  writeFileSync(file, `${JSON.stringify(run)}\n`, { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

/** The runs registered in `dir` whose process is alive and whose file only this user can read. */
export function registeredRuns(dir: string): RegisteredRun[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith(".json"));
  } catch {
    return [];
  }
  const runs: RegisteredRun[] = [];
  for (const name of names) {
    const run = readRun(join(dir, name));
    if (run !== undefined) runs.push(run);
  }
  return runs;
}

function readRun(file: string): RegisteredRun | undefined {
  try {
    const stats = statSync(file);
    // Another user's file, or one others could have written: not ours to trust.
    if ((process.getuid !== undefined && stats.uid !== process.getuid()) || (stats.mode & 0o077) !== 0) return undefined;
    const run = JSON.parse(readFileSync(file, "utf8")) as RegisteredRun;
    if (!isRegisteredRun(run)) return undefined;
    if (!isAlive(run.pid)) {
      rmSync(file, { force: true });
      return undefined;
    }
    return run;
  } catch {
    return undefined;
  }
}

function isRegisteredRun(value: RegisteredRun): boolean {
  return (
    typeof value.runId === "string" &&
    /^[A-Za-z0-9_-]{1,64}$/.test(value.runId) &&
    Number.isInteger(value.pid) &&
    typeof value.origin === "string" &&
    /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+$/.test(value.origin) &&
    typeof value.token === "string" &&
    typeof value.command === "string"
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
