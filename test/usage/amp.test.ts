/**
 * Amp's threads (src/usage/amp.ts): one JSON document per thread under ~/.local/share/amp/threads. Our synthetic
 * thread (test/fixtures/amp-threads, shaped after the public readers docs/dialects/amp.md cites) is listed and
 * counted by `sessions`/`usage`, read by `summary`/`html`; a thread that is not JSON is said, never a crash.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/exit.ts";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const THREAD = "T-0c0ffee0-1234-4abc-8def-000000000001";

function dataHome(variable: "XDG_DATA_HOME" | "AMP_DATA_HOME" = "XDG_DATA_HOME"): { env: Record<string, string>; file: string } {
  const root = tempDir("amp-store");
  const dir = join(root, "data", "amp", "threads");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${THREAD}.json`);
  copyFileSync(join(repoRoot, "test/fixtures/amp-threads", `${THREAD}.json`), file);
  return { env: { HOME: join(root, "home"), [variable]: join(root, "data"), XDG_CACHE_HOME: join(root, "cache"), NO_COLOR: "1" }, file };
}

async function cli(args: string[], env: Record<string, string>) {
  const io = fakeIo({ env });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe("Amp's threads", () => {
  it.each(["XDG_DATA_HOME", "AMP_DATA_HOME"] as const)("sessions and usage read the threads under $%s/amp/threads", async (variable) => {
    const { env, file } = dataHome(variable);
    const listed = await cli(["sessions", "--json"], env);
    expect(listed.code, listed.err).toBe(0);
    const [session] = JSON.parse(listed.out) as {
      agent: string;
      sessionId: string;
      project: string;
      status: string;
      requests: number;
      tokens: Record<string, number>;
      files: string[];
    }[];
    expect(session).toMatchObject({
      title: "List the files",
      agent: "amp",
      sessionId: THREAD,
      project: "/work/demo",
      status: "completed",
      requests: 2,
      files: [file],
    });
    expect(session?.tokens).toMatchObject({ input: 160, output: 42, cacheRead: 620, cacheWrite: 500 });
  });

  it("summary agrees with usage on the tokens, and html shows the thread", async () => {
    const { env, file } = dataHome();
    const summary = JSON.parse((await cli(["summary", file, "--json"], env)).out) as {
      dialect: string;
      status: string;
      usage: Record<string, number>;
    };
    expect(summary.dialect).toBe("amp");
    expect(summary.status).toBe("success");
    expect(summary.usage).toMatchObject({ inputTokens: 160, outputTokens: 42, cacheReadTokens: 620, cacheWriteTokens: 500 });
    const page = join(tempDir("amp-html"), "t.html");
    expect((await cli(["html", file, "-o", page], env)).code).toBe(0);
    expect(readFileSync(page, "utf8")).toContain("There are README.md and src.");
  });

  it("a thread file that is not JSON, or not a thread: said, and the others still read", async () => {
    const { env, file } = dataHome();
    const bad = join(file, "..", "T-00000000-0000-4000-8000-000000000000.json");
    writeFileSync(bad, "{ cut sho");
    const listed = await cli(["usage", "--json"], env);
    expect(listed.code).toBe(EXIT.io);
    expect(listed.err).toContain(`${bad}: cannot read it: not a JSON document`);
    expect((JSON.parse(listed.out) as { totals: { requests: number } }).totals.requests).toBe(2);
    writeFileSync(bad, '{"hello":"world"}');
    const rendered = await cli(["render", bad], env);
    expect(rendered.code).not.toBe(0);
    expect(rendered.err).toContain("not an Amp thread");
  });
});
