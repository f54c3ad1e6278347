// Runs once before all test files (once per vitest project): says, in one line, when ../shared is absent and its
// suites skip; makes the run's temporary root (test/helpers/temp.ts) and removes it when the run ends.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { TestProject } from "vitest/node";

export default function setup(project: TestProject): () => void {
  const shared = resolve(
    process.env.AGENTSTREAM_SHARED ?? join(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../../shared"),
  );
  if (!existsSync(join(shared, "corpus")) || !existsSync(join(shared, "fixtures"))) {
    console.warn(
      `[agentstream tests] ../shared not found at ${shared}: the suites on real captures and corpora are skipped; our own fixtures still run`,
    );
  }
  // Every tempDir of this run is made in here: what a file's hooks could not remove (vitest runs no afterAll in a
  // file whose tests all skip; a crashed worker runs none) goes with the root at the end of the run.
  const root = mkdtempSync(join(tmpdir(), "agentstream-test-run-"));
  project.provide("tempRoot", root);
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}
