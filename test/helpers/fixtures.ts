/** Our own small synthetic fixtures, under test/fixtures/<folder>/ (never third-party files: those stay in ../shared). */
import { join } from "node:path";
import { repoRoot } from "./shared.ts";

/** The path of test/fixtures/<folder>/<name>. */
export function fixturePath(folder: string, name: string): string {
  return join(repoRoot, "test/fixtures", folder, name);
}
