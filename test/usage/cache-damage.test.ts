/**
 * Caches are caches: whatever is at the cache's place (flipped bits, a cut file, a link to /dev/zero, a FIFO) never
 * changes a report, never hangs or grows a run, and is made again. Through the built binary, as a user runs it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCache } from "../../src/usage/cache.ts";
import { repoRoot } from "../helpers/shared.ts";
import { claudeLine, claudeUserLine, codexMeta, codexTokenCount, tempTree } from "./trees.ts";

const bin = join(repoRoot, "dist/cli/bin.cjs");

/** A tree of a few sessions (two agents, several days and models) and a cache folder beside it. */
function sessions() {
  const tree = tempTree();
  for (let f = 0; f < 6; f++) {
    tree.write(
      `logs/projects/p${f % 2}/s${f}.jsonl`,
      Array.from({ length: 12 }, (_, i) =>
        claudeLine({
          session: `s${f}`,
          message: `m${f}-${i}`,
          request: `r${f}-${i}`,
          output: 100 * f + i,
          input: 7 * i,
          cacheRead: 1000 + i,
          model: i % 3 === 0 ? "claude-opus-4-20250514" : "claude-sonnet-4-20250514",
          time: `2026-03-0${1 + (i % 4)}T1${f}:00:00Z`,
        }),
      ),
    );
  }
  tree.write("logs/sessions/2026/03/02/rollout-2026-03-02T08-00-00-t.jsonl", [
    ...codexMeta("t", "2026-03-02T08:00:00Z"),
    codexTokenCount("2026-03-02T08:00:05Z", [1000, 800, 20], [1000, 800, 20]),
    codexTokenCount("2026-03-02T08:01:00Z", [3000, 2400, 70], [2000, 1600, 50]),
  ]);
  const cacheHome = join(tree.root, "cache");
  return { logs: join(tree.root, "logs"), cacheHome, cacheDir: join(cacheHome, "agentstream") };
}

function usage(logs: string, cacheHome: string, extra: string[] = []) {
  const result = spawnSync(process.execPath, [bin, "usage", logs, "--json", "--tz", "UTC", "--by", "day", "--by", "model", ...extra], {
    env: { ...process.env, XDG_CACHE_HOME: cacheHome, NO_COLOR: "1" },
    encoding: "utf8",
    timeout: 30_000,
    killSignal: "SIGKILL",
  });
  return { code: result.status, out: result.stdout, err: result.stderr, signal: result.signal };
}

/** The cache files a run left (whatever their layout's name). */
const cacheFiles = (dir: string): string[] =>
  readdirSync(dir)
    .filter((name) => /^usage-.*\.bin$/.test(name))
    .map((name) => join(dir, name));

describe.skipIf(!existsSync(bin))("a damaged usage cache", () => {
  it("flipped bits anywhere in a cache file: the report is a cold run's, this run and every later one", () => {
    const { logs, cacheHome, cacheDir } = sessions();
    const cold = usage(logs, cacheHome, ["--no-cache"]);
    expect(cold.code).toBe(0);
    expect(usage(logs, cacheHome).out).toBe(cold.out);
    const files = cacheFiles(cacheDir);
    expect(files.length).toBeGreaterThan(0);
    const pristine = new Map(files.map((file) => [file, readFileSync(file)]));
    for (const [file, bytes] of pristine) {
      // Four bits flipped at each of several places spread over the file: the header, the table, the columns.
      for (let k = 1; k <= 6; k++) {
        const damaged = Buffer.from(bytes);
        const at = Math.floor((k * damaged.length) / 7);
        for (let bit = 0; bit < 4; bit++) damaged[at + bit] = (damaged[at + bit] ?? 0) ^ (1 << (2 * bit + 1));
        for (const [other, original] of pristine) writeFileSync(other, other === file ? damaged : original);
        const run = usage(logs, cacheHome);
        expect(run.code, `${file} at ${at}`).toBe(0);
        expect(run.out, `${file} at ${at}`).toBe(cold.out);
        expect(usage(logs, cacheHome).out, `${file} at ${at}, the run after`).toBe(cold.out);
      }
    }
  });

  it("a cache one run wrote is read by the next without a word, a session with no requests among the rest", () => {
    const { logs, cacheHome, cacheDir } = sessions();
    // No request in it: its columns are empty, an array with no memory behind it, and the checksum must still
    // cover every byte the way the reader does.
    writeFileSync(join(logs, "projects/p0/quiet.jsonl"), `${JSON.stringify(claudeUserLine("quiet", "2026-03-01T09:00:00Z"))}\n`);
    const cold = usage(logs, cacheHome, ["--no-cache"]);
    const first = usage(logs, cacheHome);
    expect(first.err).toBe("");
    const second = usage(logs, cacheHome);
    expect(second.err).toBe("");
    expect(second.out).toBe(cold.out);
    expect(loadCache(cacheDir).damaged).toBeUndefined();
  });

  it("a cache cut short is made again, whole", () => {
    const { logs, cacheHome, cacheDir } = sessions();
    const cold = usage(logs, cacheHome, ["--no-cache"]);
    usage(logs, cacheHome);
    for (const file of cacheFiles(cacheDir)) writeFileSync(file, readFileSync(file).subarray(0, Math.floor(readFileSync(file).length / 2)));
    const run = usage(logs, cacheHome);
    expect(run.out).toBe(cold.out);
    // One line says so, once.
    expect(run.err.split("\n").filter((line) => /cache/.test(line))).toHaveLength(1);
    const again = usage(logs, cacheHome);
    expect(again.out).toBe(cold.out);
    expect(again.err).toBe("");
    const cache = loadCache(cacheDir);
    expect(cache.damaged).toBeUndefined();
    expect(cache.scans.size).toBe(7);
  });

  it("a cache that is a link to /dev/zero: read no further than a cache can be, the report right, the link replaced", () => {
    const { logs, cacheHome, cacheDir } = sessions();
    const cold = usage(logs, cacheHome, ["--no-cache"]);
    usage(logs, cacheHome);
    for (const file of cacheFiles(cacheDir)) {
      rmSync(file);
      symlinkSync("/dev/zero", file);
    }
    const run = usage(logs, cacheHome);
    expect(run.signal).toBeNull();
    expect(run.out).toBe(cold.out);
    expect(usage(logs, cacheHome).out).toBe(cold.out);
    expect(loadCache(cacheDir).damaged).toBeUndefined();
  });

  it("a cache that is a FIFO with no writer: no wait, the report right", () => {
    const { logs, cacheHome, cacheDir } = sessions();
    const cold = usage(logs, cacheHome, ["--no-cache"]);
    usage(logs, cacheHome);
    for (const file of cacheFiles(cacheDir)) {
      rmSync(file);
      expect(spawnSync("mkfifo", [file]).status).toBe(0);
    }
    const run = usage(logs, cacheHome);
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    expect(run.out).toBe(cold.out);
    expect(usage(logs, cacheHome).out).toBe(cold.out);
  });
});
