// Runs once before all test files: says, in one line, when ../shared is absent and its suites skip.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export default function setup(): void {
  const shared = resolve(
    process.env.AGENTSTREAM_SHARED ?? join(import.meta.dirname ?? new URL(".", import.meta.url).pathname, "../../shared"),
  );
  if (!existsSync(join(shared, "corpus")) || !existsSync(join(shared, "fixtures"))) {
    console.warn(
      `[agentstream tests] ../shared not found at ${shared}: the suites on real captures and corpora are skipped; our own fixtures still run`,
    );
  }
}
