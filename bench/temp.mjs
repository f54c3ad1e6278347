/**
 * The benches' temporary folders: `benchTempDir("usage-cache")` is a fresh `agentstream-bench-usage-cache-XXXXXX`
 * under os.tmpdir(), removed when the bench process exits (the tests' counterpart is test/helpers/temp.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made = new Set();
process.on("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder under os.tmpdir(), removed when this process exits. */
export function benchTempDir(name) {
  const dir = mkdtempSync(join(tmpdir(), `agentstream-bench-${name}-`));
  made.add(dir);
  return dir;
}
