/**
 * publish and tail without a server: usage errors, and a publish to a server that is down, whose
 * events go to the spool, what does not fit counted and said (never silent). The suites with a
 * real nats-server are test/fleet/nats-*.test.ts and test/e2e/run-publish.test.ts; publish's
 * end-by-itself check is test/e2e/publish-cli.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { freePort } from "../helpers/nats-server.ts";
import { tempDir } from "../helpers/temp.ts";

const capture = join(import.meta.dirname, "../fixtures/claude/edit-write-todowrite-file-changed-plan.ndjson");

describe("publish and tail: usage", () => {
  it("the NATS URL comes first; publish never sends secrets (no --no-redact); tail reads no files", async () => {
    const io = fakeIo();
    expect(await run(["publish", capture], io)).toBe(2);
    expect(io.err()).toMatch(/name the NATS server first: agentstream publish nats:\/\/127\.0\.0\.1:4222/);
    const redact = fakeIo();
    expect(await run(["publish", "nats://127.0.0.1:1", "--no-redact", capture], redact)).toBe(2);
    expect(redact.err()).toMatch(/publish always redacts/);
    const files = fakeIo();
    expect(await run(["tail", "nats://127.0.0.1:1", capture], files)).toBe(2);
    const since = fakeIo();
    expect(await run(["tail", "nats://127.0.0.1:1", "--since", "last tuesday"], since)).toBe(2);
    expect(since.err()).toMatch(/--since takes all, a stream sequence/);
    const runPublish = fakeIo();
    expect(await run(["run", "--publish", "nats://127.0.0.1:1", "--no-redact", "--", "true"], runPublish)).toBe(2);
  });

  it("serve: the NATS options need --nats; --since takes a time or a duration; secrets stay out of the errors", async () => {
    const stray = fakeIo();
    expect(await run(["serve", "--since", "1h", capture], stray)).toBe(2);
    expect(stray.err()).toMatch(/--since reads NATS: add --nats <url>/);
    const sequence = fakeIo();
    expect(await run(["serve", "--nats", "nats://127.0.0.1:1", "--since", "1234"], sequence)).toBe(2);
    expect(sequence.err()).toMatch(/serve --since takes a time/);
    const url = fakeIo();
    expect(await run(["serve", "--nats", "somewhere"], url)).toBe(2);
    expect(url.err()).toMatch(/name the NATS server first/);
    const creds = fakeIo();
    expect(await run(["serve", "--nats", "nats://alice:pw-s3cret@127.0.0.1:1", "--creds", "/nonexistent/x.creds"], creds)).toBe(2);
    expect(creds.err()).toMatch(/--creds: cannot read \/nonexistent\/x\.creds/);
    expect(creds.err()).not.toContain("pw-s3cret");
    // The same for the other commands: a usage error (2) before anything starts, not a server that seems down (3).
    const tailCreds = fakeIo();
    expect(await run(["tail", "nats://127.0.0.1:1", "--creds", "/nonexistent/x.creds"], tailCreds)).toBe(2);
    const runCreds = fakeIo();
    expect(await run(["run", "--publish", "nats://127.0.0.1:1", "--creds", "/nonexistent/x.creds", "--", "true"], runCreds)).toBe(2);
    expect(runCreds.err()).toMatch(/--creds: cannot read/);
  });

  it("a missing input or a bad option ends the command (the publisher is closed, nothing hangs)", async () => {
    const port = await freePort();
    const spool = tempDir("spool");
    const missing = fakeIo();
    const url = `nats://127.0.0.1:${port}`;
    expect(await run(["publish", url, "--spool", spool, "--flush-timeout", "100ms", capture, "/nonexistent/x.jsonl"], missing)).toBe(3);
    expect(missing.err()).toMatch(/still waiting in .*cannot read \/nonexistent\/x\.jsonl/s);
    const badDialect = fakeIo();
    expect(await run(["run", "--publish", url, "--spool", spool, "--from", "nosuch", "--", "true"], badDialect)).toBe(2);
    expect(badDialect.err()).toMatch(/unknown dialect "nosuch"/);
  });

  it("tail says when the server cannot be reached (exit 3), with the password masked", async () => {
    const port = await freePort();
    const io = fakeIo();
    expect(await run(["tail", `nats://bob:hunter2@127.0.0.1:${port}`, "--no-follow"], io)).toBe(3);
    expect(io.err()).toContain(`cannot connect to NATS (nats://bob:***@127.0.0.1:${port})`);
    expect(io.err()).not.toContain("hunter2");
  });
});

describe("publish while the server is down", () => {
  it("the events wait in the spool; what did not fit is counted and said, and the exit status is 3", async () => {
    const port = await freePort();
    const spool = tempDir("spool");
    const io = fakeIo();
    const args = ["publish", `nats://127.0.0.1:${port}`, "--spool", spool, "--spool-max", "2K", "--flush-timeout", "100ms", "-q", capture];
    expect(await run(args, io)).toBe(3);
    // -q silences the progress lines, never the loss.
    const said = io.err().trim().split("\n");
    expect(said).toHaveLength(1);
    const [, waiting = "0"] = /(\d+) still waiting/.exec(said[0] ?? "") ?? [];
    const [, dropped = "0"] = /(\d+) DROPPED/.exec(said[0] ?? "") ?? [];
    expect(Number(dropped)).toBeGreaterThan(0);
    expect(Number(waiting)).toBeGreaterThan(0);
    const files = readdirSync(spool);
    expect(files).toHaveLength(1);
    const kept = readFileSync(join(spool, files[0] as string), "utf8")
      .trim()
      .split("\n");
    expect(kept).toHaveLength(Number(waiting));
    // Whole lines, in order, each `<subject> <id> <event>`.
    expect(kept.map((line) => JSON.parse(line.split(" ").slice(2).join(" ")).seq)).toEqual(kept.map((_, i) => i));
    expect(kept[0]).toMatch(/^agentstream\.\S+\.claude\.\S+ \S+:0 \{/);
  });
});
