/**
 * OpenCode's session store (src/usage/opencode.ts): a session is rows of its SQLite database. `sessions` and `usage`
 * list and count what one of our own offline runs of OpenCode 1.18.33 left (test/fixtures/opencode-session), a
 * database that changed is read again, and a damaged, foreign or locked database is said, never a crash.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { EXIT } from "../../src/cli/exit.ts";
import { loadCache } from "../../src/usage/cache.ts";
import { cacheDir } from "../../src/usage/cache-dir.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const FIXTURE = join(repoRoot, "test/fixtures/opencode-session/opencode.db");
const SESSION = "ses_dcb8ada35ffefqQG3Xv570XUvO";

/** A data folder holding a copy of the captured database (tests may write to their copy, never to the fixture). */
function dataHome(): { env: Record<string, string>; db: string } {
  const root = tempDir("opencode-store");
  const dir = join(root, "data", "opencode");
  mkdirSync(dir, { recursive: true });
  const db = join(dir, "opencode.db");
  copyFileSync(FIXTURE, db);
  return { env: { HOME: join(root, "home"), XDG_DATA_HOME: join(root, "data"), XDG_CACHE_HOME: join(root, "cache") }, db };
}

async function cli(args: string[], env: Record<string, string>) {
  const io = fakeIo({ env });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

interface SessionJson {
  agent: string;
  sessionId: string;
  project: string;
  status: string;
  tokens: Record<string, number>;
  costUsd: number;
  requests: number;
  models: string[];
  files: string[];
}

describe("OpenCode's store in sessions and usage", () => {
  it("lists the session under <database>#<session id>, with its directory, status, tokens and cost", async () => {
    const { env, db } = dataHome();
    const { code, out, err } = await cli(["sessions", "--json"], env);
    expect(code, err).toBe(0);
    const sessions = JSON.parse(out) as SessionJson[];
    expect(sessions).toHaveLength(1);
    const [session] = sessions;
    expect(session).toMatchObject({
      // The title OpenCode's title agent gave it (the scripted server answered "ok").
      title: "ok",
      agent: "opencode",
      sessionId: SESSION,
      status: "completed",
      requests: 2,
      models: ["claude-sonnet-4-5"],
    });
    expect(session?.project).toMatch(/\/work$/);
    expect(session?.files).toEqual([`${db}#${SESSION}`]);
    // As the scripted server reported them: 100 in and 10 out, then 250 in, 40 out and 200 read from the cache.
    expect(session?.tokens).toMatchObject({ input: 350, output: 50, cacheRead: 200, cacheWrite: 0 });
    // The cost OpenCode computed per call is a reported cost, as it wrote it.
    expect(session?.costUsd).toBeCloseTo(0.00186, 8);
  });

  it("reads a database OPENCODE_DB names, and a database or one session named on the command line", async () => {
    const { env, db } = dataHome();
    const elsewhere = join(tempDir("opencode-elsewhere"), "other.db");
    copyFileSync(db, elsewhere);
    const named = JSON.parse(
      (await cli(["sessions", "--json"], { ...env, XDG_DATA_HOME: join(env.HOME ?? "", "none"), OPENCODE_DB: elsewhere })).out,
    ) as SessionJson[];
    expect(named.map((s) => s.files[0])).toEqual([`${elsewhere}#${SESSION}`]);
    const whole = JSON.parse((await cli(["usage", db, "--json"], env)).out) as { totals: { requests: number } };
    expect(whole.totals.requests).toBe(2);
    const one = JSON.parse((await cli(["sessions", `${db}#${SESSION}`, "--json"], env)).out) as SessionJson[];
    expect(one.map((s) => s.sessionId)).toEqual([SESSION]);
  });

  it("reads a database that changed again (the cache keys it by the database's and its log's size and mtime)", async () => {
    const { env, db } = dataHome();
    const before = JSON.parse((await cli(["usage", "--json"], env)).out) as { totals: { tokens: { output: number } } };
    expect(before.totals.tokens.output).toBe(50);
    const writer = new Database(db);
    writer.pragma("journal_mode = WAL");
    const message = writer.prepare('SELECT id FROM message WHERE data LIKE \'%"finish":"stop"%\'').get() as { id: string };
    writer.prepare("INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)").run(
      "prt_zzz_added",
      message.id,
      SESSION,
      1796176424900,
      1796176424900,
      JSON.stringify({
        type: "step-finish",
        reason: "stop",
        cost: 0,
        tokens: { input: 1, output: 7, reasoning: 0, cache: { read: 0, write: 0 } },
      }),
    );
    // Still in the write-ahead log, not yet in the database file: the log's stamp tells the change.
    const after = JSON.parse((await cli(["usage", "--json"], env)).out) as { totals: { tokens: { output: number }; requests: number } };
    writer.close();
    expect(after.totals.requests).toBe(3);
    expect(after.totals.tokens.output).toBe(57);
  });

  it("forgets a session deleted from a database named on the command line (its cache entry goes too)", async () => {
    const { env, db } = dataHome();
    await cli(["sessions", db, "--json"], env);
    expect([...loadCache(cacheDir(env)).scans.keys()]).toEqual([`${db}#${SESSION}`]);
    const writer = new Database(db);
    writer.pragma("foreign_keys = ON");
    writer.prepare("DELETE FROM session WHERE id = ?").run(SESSION);
    writer.close();
    expect(JSON.parse((await cli(["sessions", db, "--json"], env)).out)).toEqual([]);
    expect([...loadCache(cacheDir(env)).scans.keys()]).toEqual([]);
  });

  it("says a damaged, foreign or locked database, and a session that is not in it; the other sessions are still read", async () => {
    const { env, db } = dataHome();
    const other = join(env.XDG_DATA_HOME ?? "", "opencode", "opencode-beta.db");
    writeFileSync(other, "this is not a database\n".repeat(200));
    const listed = await cli(["sessions", "--json"], env);
    expect(listed.code).toBe(EXIT.io);
    expect(listed.err).toContain(`${other}: cannot read it: not an SQLite database`);
    expect((JSON.parse(listed.out) as SessionJson[]).map((s) => s.sessionId)).toEqual([SESSION]);

    const missing = await cli(["sessions", `${db}#ses_not_there`, "--json"], env);
    expect(missing.code).toBe(EXIT.io);
    expect(missing.err).toContain("no session ses_not_there in the database");

    const foreign = join(tempDir("opencode-foreign"), "opencode.db");
    const made = new Database(foreign);
    made.exec("CREATE TABLE notes (id TEXT)");
    made.close();
    const read = await cli(["usage", foreign, "--json"], env);
    expect(read.code).toBe(EXIT.io);
    expect(read.err).toContain("not a store of the expected layout");

    const holder = new Database(db);
    holder.pragma("locking_mode = EXCLUSIVE");
    holder.exec("BEGIN EXCLUSIVE");
    const locked = await cli(["usage", db, "--json", "--no-cache"], env);
    holder.exec("ROLLBACK");
    holder.close();
    expect(locked.code).toBe(EXIT.io);
    expect(locked.err).toContain("locked");
  });
});
