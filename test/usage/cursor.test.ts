/**
 * Cursor CLI's session store (src/usage/cursor.ts): one SQLite database per session under ~/.cursor/chats. Our
 * synthetic store (test/fixtures/cursor-store, shaped after the public readers docs/dialects/cursor.md cites) is
 * listed by `sessions` (no usage: the store keeps none) and read by `render`/`html`; a damaged store is said.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXIT } from "../../src/cli/exit.ts";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const AGENT = "5b0c8f1e-7d2a-4c3b-9e1f-0a1b2c3d4e5f";
const HASH = "11dd9429831578384393182ae89b24ff";

function home(): { env: Record<string, string>; store: string } {
  const root = tempDir("cursor-store");
  cpSync(join(repoRoot, "test/fixtures/cursor-store/chats"), join(root, ".cursor", "chats"), { recursive: true });
  return {
    env: { HOME: root, XDG_CACHE_HOME: join(root, "cache"), NO_COLOR: "1" },
    store: join(root, ".cursor", "chats", HASH, AGENT, "store.db"),
  };
}

async function cli(args: string[], env: Record<string, string>) {
  const io = fakeIo({ env });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

describe("Cursor CLI's store", () => {
  it("sessions lists the session of ~/.cursor/chats/<hash>/<agent id>/store.db, with its folder and no requests", async () => {
    const { env, store } = home();
    const { code, out, err } = await cli(["sessions", "--json"], env);
    expect(code, err).toBe(0);
    const [session] = JSON.parse(out) as { agent: string; sessionId: string; project: string; requests: number; files: string[] }[];
    expect(session).toMatchObject({ agent: "cursor", sessionId: AGENT, project: "/work/demo", requests: 0, files: [store] });
  });

  it("render and html read the session by its database: the prompt without Cursor's context, the tool call, the answers", async () => {
    const { env, store } = home();
    const rendered = await cli(["render", store], env);
    expect(rendered.code, rendered.err).toBe(0);
    expect(rendered.out).toContain("Count the files.");
    expect(rendered.out).not.toContain("user_info");
    expect(rendered.out).toContain("ls | wc -l");
    expect(rendered.out).toContain("There are 2 files.");
    const page = join(tempDir("cursor-html"), "s.html");
    expect((await cli(["html", store, "-o", page], env)).code).toBe(0);
    expect(readFileSync(page, "utf8")).toContain("There are 2 files.");
  });

  it("a store that is not a database, or one without its metadata: said, and the other sessions still listed", async () => {
    const { env } = home();
    const broken = join(env.HOME ?? "", ".cursor", "chats", HASH, "00000000-0000-0000-0000-000000000000", "store.db");
    cpSync(join(repoRoot, "test/fixtures/cursor-store/make-store.mjs"), broken);
    const listed = await cli(["sessions", "--json"], env);
    expect(listed.code).toBe(EXIT.io);
    expect(listed.err).toContain("not an SQLite database");
    expect((JSON.parse(listed.out) as { sessionId: string }[]).map((s) => s.sessionId)).toEqual([AGENT]);
    writeFileSync(broken, "");
    const empty = await cli(["render", broken], env);
    expect(empty.code).not.toBe(0);
    expect(empty.err).toContain("not a store of the expected layout (no such table: meta)");
  });
});
