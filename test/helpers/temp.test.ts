import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { repoRoot } from "./shared.ts";
import { tempDir } from "./temp.ts";

const scratch = tempDir("temp-check");

describe("tempDir", () => {
  it("makes its folders in the run's root, which test/global-setup.ts removes when the run ends", () => {
    expect(basename(inject("tempRoot"))).toMatch(/^agentstream-test-run-/);
    expect(dirname(scratch)).toBe(inject("tempRoot"));
  });

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

  it("gives every test file its own home: HOME and the XDG folders point into a temporary folder", () => {
    const home = homedir();
    expect(dirname(home)).toBe(inject("tempRoot"));
    expect(basename(home)).toMatch(/^agentstream-home-/);
    for (const name of ["XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"]) expect(process.env[name]?.startsWith(home)).toBe(true);
  });
});
