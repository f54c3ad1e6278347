import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "./shared.js";

// This suite checks the helper from outside, so it makes its own scratch folder by hand (the one exception).
const scratch = mkdtempSync(join(tmpdir(), "agentstream-temp-check-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("tempDir", () => {
  it("leaves nothing in the temporary folder once a test file ends, from every scope it was called in", () => {
    const privateTmp = join(scratch, "tmp");
    const log = join(scratch, "made.txt");
    mkdirSync(privateTmp);
    const run = spawnSync(
      process.execPath,
      [join(repoRoot, "node_modules/vitest/vitest.mjs"), "run", "--config", "test/fixtures/temp-dir/vitest.config.ts"],
      {
        cwd: repoRoot,
        encoding: "utf8",
        env: { ...process.env, TMPDIR: privateTmp, TEMP_DIR_LOG: log, NO_COLOR: "1", CI: "1" },
      },
    );
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("2 passed");
    const made = readFileSync(log, "utf8").trim().split("\n");
    expect(made).toHaveLength(5);
    for (const dir of made) expect(dir.startsWith(join(privateTmp, "agentstream-fixture-"))).toBe(true);
    // vitest itself may leave its own files under TMPDIR; none of ours may remain.
    expect(readdirSync(privateTmp).filter((name) => name.startsWith("agentstream-"))).toEqual([]);
  });
});
