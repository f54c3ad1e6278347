/**
 * Locates ../shared (third-party captures and corpora, read in place, never copied).
 * When it is absent (a user's fresh clone), suites that need it skip with one clear line.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
/** The repository root. */
export const repoRoot = resolve(here, "../..");
/** ../shared beside the repository, or AGENTSTREAM_SHARED. */
const sharedDir = resolve(process.env.AGENTSTREAM_SHARED ?? join(repoRoot, "../shared"));
/** True when the shared corpora and captures are present. */
export const hasShared = existsSync(join(sharedDir, "corpus")) && existsSync(join(sharedDir, "fixtures"));

/** Kept for the suites that call it: the one line about a missing ../shared is printed by test/global-setup.ts. */
export function noteSharedMissing(): void {}

export function sharedPath(...parts: string[]): string {
  return join(sharedDir, ...parts);
}

/** Every real capture file under ../shared/fixtures/<dialect>/ (recursively), as [dialect, path]. */
export function listCaptures(): [string, string][] {
  if (!hasShared) return [];
  const root = sharedPath("fixtures");
  const out: [string, string][] = [];
  for (const dialect of readdirSync(root)) {
    const dir = join(root, dialect);
    if (!statSync(dir).isDirectory() || dialect === "protocols") continue;
    const walk = (d: string): void => {
      for (const name of readdirSync(d).sort()) {
        const p = join(d, name);
        if (statSync(p).isDirectory()) walk(p);
        else if (!name.endsWith(".meta.json")) out.push([dialect, p]);
      }
    };
    walk(dir);
  }
  return out;
}
