/**
 * The fleet against a real nats-server (JetStream, loopback, a temporary store): publish then tail
 * (every event once, in order), the server killed and restarted in the middle of 20 runs, a network
 * pause (SIGSTOP), a slow reader on a durable consumer, credentials. Skips with one line when
 * nats-server is not installed.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { jetstream } from "@nats-io/jetstream";
import { connect, nkeys } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { createFleetSessions } from "../../src/fleet/fleet-sessions.ts";
import { createPublisher, type PublisherOptions, type PublishReport } from "../../src/fleet/publisher.ts";
import { readFleet, type FleetEvent } from "../../src/fleet/reader.ts";
import type { AgentEvent } from "../../src/model/events.ts";
import { validateEvent } from "../../src/validation/validate-event.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { NATS_SKIP_REASON, natsServerPath, startNatsServer, type NatsServer } from "../helpers/nats-server.ts";
import { writeOperatorSetup } from "../helpers/nats-jwt.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const hasOpenssl = spawnSync("openssl", ["version"], { stdio: "ignore" }).status === 0;
if (natsServerPath === undefined) console.warn(`[agentstream tests] ${NATS_SKIP_REASON}`);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A synthetic session: started, `count` text events, completed; seq 0..count+1. */
function sessionEvents(session: string, count: number): AgentEvent[] {
  const source = { dialect: "claude" };
  const events: AgentEvent[] = [{ v: 1, seq: 0, type: "session.started", sessionId: session, source }];
  for (let i = 1; i <= count; i++)
    events.push({
      v: 1,
      seq: i,
      type: "message.completed",
      messageId: `m${i}`,
      role: "assistant",
      kind: "text",
      text: `${session} ${i}`,
      sessionId: session,
      source,
    });
  events.push({ v: 1, seq: count + 1, type: "session.completed", status: "success", sessionId: session, source });
  for (const event of events) expect(validateEvent(event)).toEqual([]);
  return events;
}

/**
 * Everything one host published, as stored now. (One stream per server: JetStream refuses a second
 * stream over the same subjects, so each test publishes as its own host.)
 */
async function readAll(server: NatsServer, host: string): Promise<FleetEvent[]> {
  const out: FleetEvent[] = [];
  const options = {
    connection: { servers: server.url },
    stream: "AGENTSTREAM",
    filter: { host },
    since: { kind: "all" },
    follow: false,
  } as const;
  for await (const item of readFleet(options)) out.push(item);
  return out;
}

/** Each session's seqs, in the order read. */
function seqsBySession(events: readonly FleetEvent[]): Map<string, number[]> {
  const by = new Map<string, number[]>();
  for (const { address, event } of events) {
    const list = by.get(address.session) ?? [];
    list.push(event.seq);
    by.set(address.session, list);
  }
  return by;
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

describe.skipIf(natsServerPath === undefined)("fleet with a real nats-server", () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const publisherOptions = (host: string, overrides: Partial<PublisherOptions> = {}): PublisherOptions => ({
    connection: { servers: server.url },
    stream: { name: "AGENTSTREAM" },
    host,
    spoolDir: tempDir("fleet"),
    spoolMaxBytes: 64 << 20,
    ...overrides,
  });

  it.skipIf(!hasShared)("publish then tail (CLI): every event of real captures once, in order, as convert writes them", async () => {
    const files = [
      sharedPath("fixtures/claude/archistrator_success_with_subagent.jsonl"),
      sharedPath("fixtures/codex/finnamon_bash_file_change_started_mcp_denied.jsonl"),
      join(import.meta.dirname, "../fixtures/claude/edit-write-todowrite-file-changed-plan.ndjson"),
    ];
    const spool = tempDir("fleet");
    const io = fakeIo();
    expect(await run(["publish", server.url, "--spool", spool, "--host", "ci.runner-1", ...files], io)).toBe(0);
    expect(io.err()).toMatch(/published to AGENTSTREAM/);
    const tailed = fakeIo();
    expect(await run(["tail", server.url, "--host", "ci.runner-1", "--since", "all", "--no-follow", "--to", "agentstream"], tailed)).toBe(
      0,
    );
    const got = tailed
      .out()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as AgentEvent);
    const expected: AgentEvent[] = [];
    for (const file of files) {
      const converted = fakeIo();
      await run(["convert", "--to", "agentstream", file], converted);
      expected.push(
        ...converted
          .out()
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line) as AgentEvent),
      );
    }
    expect(got).toEqual(expected);

    // Published again: JetStream already has every id, nothing is stored twice.
    const again = fakeIo();
    expect(await run(["publish", server.url, "--spool", spool, "--host", "ci.runner-1", files[0] as string], again)).toBe(0);
    expect(again.err()).toMatch(/0 event\(s\) published .*already there/);
    expect(await readAll(server, "ci.runner-1")).toHaveLength(expected.length);

    // Filtered by agent and host; the view prefixes each line with its session when several are shown.
    const codexOnly = fakeIo();
    await run(["tail", server.url, "--since", "all", "--no-follow", "--agent", "codex", "--to", "agentstream"], codexOnly);
    expect(
      codexOnly
        .out()
        .trim()
        .split("\n")
        .every((line) => (JSON.parse(line) as AgentEvent).source?.dialect === "codex"),
    ).toBe(true);
    const view = fakeIo({ env: { NO_COLOR: "1" } });
    await run(["tail", server.url, "--since", "all", "--no-follow", "--host", "ci.runner-1"], view);
    const lines = view.out().trim().split("\n");
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.every((line) => /^\[ci\.runner-1 (claude|codex) [^\]]{1,8}\] /.test(line))).toBe(true);
    const none = fakeIo();
    await run(["tail", server.url, "--since", "all", "--no-follow", "--host", "elsewhere"], none);
    expect(none.out()).toBe("");
  });

  it("the server killed and restarted in the middle of 20 runs: every event arrives once, in order per session", async () => {
    const host = "restart";
    const spoolDir = tempDir("fleet");
    const runs = range(20).map((i) => ({ session: `run-${i}`, events: sessionEvents(`run-${i}`, 150) }));
    const publishers = runs.map(() => createPublisher(publisherOptions(host, { spoolDir, ackTimeoutMs: 1000 })));
    const feeding = runs.map(async ({ events }, i) => {
      const publisher = publishers[i];
      for (const [n, event] of events.entries()) {
        publisher?.event(event);
        if (n % 10 === 0) await sleep(15);
      }
    });
    await sleep(120);
    await server.kill();
    await sleep(400);
    await server.restart();
    await Promise.all(feeding);
    const reports: PublishReport[] = await Promise.all(publishers.map((p) => p.close(30_000)));
    expect(reports.reduce((sum, r) => sum + r.waiting + r.dropped, 0)).toBe(0);
    expect(reports.some((r) => r.spooled > 0)).toBe(true); // the outage was ridden out through the spool
    const bySession = seqsBySession(await readAll(server, host));
    expect(bySession.size).toBe(20);
    for (const { session, events } of runs) expect(bySession.get(session)).toEqual(range(events.length));
  });

  it("a network pause (SIGSTOP of the server): events go to the spool, then catch up once it answers", async () => {
    const host = "pause";
    const events = sessionEvents("paused", 400);
    const notices: string[] = [];
    const publisher = createPublisher(publisherOptions(host, { ackTimeoutMs: 500, onNotice: (text) => notices.push(text) }));
    let paused = false;
    for (const [n, event] of events.entries()) {
      publisher.event(event);
      if (n === 100) {
        await sleep(200); // the first hundred are stored
        server.pause();
        paused = true;
      }
      if (n === 300 && paused) {
        await sleep(1500); // the agent runs on while nothing answers
        server.resume();
        paused = false;
      }
      if (n % 20 === 0) await sleep(5);
    }
    const report = await publisher.close(30_000);
    expect(report.spooled).toBeGreaterThan(0);
    expect(report.waiting + report.dropped).toBe(0);
    expect(seqsBySession(await readAll(server, host)).get("paused")).toEqual(range(events.length));
    // Said once, with where the events went.
    expect(notices.filter((n) => n.includes("events go to the spool"))).toHaveLength(1);
  });

  it("a slow reader on a durable consumer stops, the publisher goes on unhindered, the reader resumes and catches up", async () => {
    const stream = "AGENTSTREAM";
    const first = createPublisher(publisherOptions("durable"));
    for (const event of sessionEvents("long", 1000)) first.event(event);
    expect((await first.close(30_000)).published).toBe(1002);

    const seen: number[] = [];
    for await (const { event } of readFleet({
      connection: { servers: server.url },
      stream,
      filter: { host: "durable", session: "long" },
      since: { kind: "all" },
      durable: "slow-reader",
      follow: true,
    })) {
      seen.push(event.seq);
      await sleep(1); // slow
      if (seen.length === 300) break;
    }
    // The publisher is not held back by the reader: the second half goes out at once.
    const second = createPublisher(publisherOptions("durable"));
    for (const event of sessionEvents("long-2", 1000)) second.event(event);
    expect((await second.close(30_000)).waiting).toBe(0);

    for await (const { event, address } of readFleet({
      connection: { servers: server.url },
      stream,
      filter: { host: "durable", session: "long" },
      durable: "slow-reader",
      follow: false,
    }))
      if (address.session === "long") seen.push(event.seq);
    expect(seen).toEqual(range(1002));
  });

  it("an event stored twice (another id, or beyond the duplicate window) is read once; the repeat is said", async () => {
    const publisher = createPublisher(publisherOptions("repeats"));
    const events = sessionEvents("twice", 3);
    for (const event of events) publisher.event(event);
    expect((await publisher.close(30_000)).published).toBe(5);
    const nc = await connect({ servers: server.url });
    await jetstream(nc).publish("agentstream.repeats.claude.twice", JSON.stringify(events[1]), { msgID: "another-id" });
    await nc.close();
    const issues: string[] = [];
    const read: number[] = [];
    const options = {
      connection: { servers: server.url },
      stream: "AGENTSTREAM",
      filter: { host: "repeats" },
      since: { kind: "all" },
      follow: false,
    } as const;
    for await (const { event } of readFleet({ ...options, onIssue: (issue) => issues.push(`${issue.code}: ${issue.message}`) }))
      read.push(event.seq);
    expect(read).toEqual([0, 1, 2, 3, 4]);
    expect(issues).toEqual(["out-of-order: event seq 1 came after seq 4 of the same session: a repeat, skipped"]);
  });

  it("publish to a server that is down: the spool keeps the events, the next publish sends them first", async () => {
    const spool = tempDir("fleet");
    const file = join(import.meta.dirname, "../fixtures/claude/edit-write-todowrite-file-changed-plan.ndjson");
    await server.kill();
    try {
      const io = fakeIo();
      const code = await run(["publish", server.url, "--host", "later", "--spool", spool, "--flush-timeout", "300ms", file], io);
      expect(code).toBe(3);
      expect(io.err()).toMatch(/still waiting in .*\.spool \(the next publish on this host sends them\)/);
    } finally {
      await server.restart();
    }
    // The next publisher sends the adopted spool first; its own events (the same session again: stored once) queue
    // behind it, and it says why.
    const io = fakeIo();
    await run(["publish", server.url, "--host", "later", "--spool", spool, file], io);
    expect(io.err()).toMatch(/found 1 spool file/);
    expect(io.err()).toMatch(/older events wait in the spool and go first/);
    expect(io.err()).not.toMatch(/slower than the agent/);
    const converted = fakeIo();
    await run(["convert", "--to", "agentstream", file], converted);
    expect((await readAll(server, "later")).map((e) => e.event)).toEqual(
      converted
        .out()
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l)),
    );
  });
});

describe.skipIf(natsServerPath === undefined)("fleet credentials", () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer(["--user", "alice", "--pass", "s3cr3t-pw"]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("user and password in the URL work and are never printed; a wrong one is said, masked", async () => {
    const file = join(import.meta.dirname, "../fixtures/claude/edit-write-todowrite-file-changed-plan.ndjson");
    const url = `nats://alice:s3cr3t-pw@127.0.0.1:${server.port}`;
    const io = fakeIo();
    expect(await run(["publish", url, "--spool", tempDir("fleet"), file], io)).toBe(0);
    expect(io.err()).toContain(`nats://alice:***@127.0.0.1:${server.port}`);
    expect(io.err()).not.toContain("s3cr3t");
    const tailed = fakeIo();
    await run(
      [
        "tail",
        `nats://127.0.0.1:${server.port}`,
        "--user",
        "alice",
        "--password",
        "s3cr3t-pw",
        "--since",
        "all",
        "--no-follow",
        "--to",
        "agentstream",
      ],
      tailed,
    );
    expect(tailed.out().trim().split("\n").length).toBeGreaterThan(5);

    const wrong = fakeIo();
    const code = await run(["tail", `nats://alice:nope-wrong@127.0.0.1:${server.port}`, "--since", "all", "--no-follow"], wrong);
    expect(code).toBe(3);
    expect(wrong.err()).toMatch(/cannot connect to NATS \(nats:\/\/alice:\*\*\*@/);
    expect(wrong.err()).not.toContain("nope-wrong");
    expect(readFileSync(file, "utf8").length).toBeGreaterThan(0);
  });
});

describe.skipIf(natsServerPath === undefined)("fleet credentials: a token, an NKey seed file, TLS", () => {
  const file = join(import.meta.dirname, "../fixtures/claude/edit-write-todowrite-file-changed-plan.ndjson");
  const servers: NatsServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.stop();
  });

  it("--token (and $NATS_TOKEN) reach a server that requires one; the token is never printed", async () => {
    const server = await startNatsServer(["--auth", "t0k3n-value"]);
    servers.push(server);
    const io = fakeIo();
    expect(await run(["publish", server.url, "--token", "t0k3n-value", "--spool", tempDir("fleet"), file], io)).toBe(0);
    expect(io.err()).not.toContain("t0k3n-value");
    const tailed = fakeIo({ env: { NATS_TOKEN: "t0k3n-value" } });
    expect(await run(["tail", server.url, "--since", "all", "--no-follow", "--to", "agentstream"], tailed)).toBe(0);
    expect(tailed.out().trim().split("\n").length).toBeGreaterThan(5);
  });

  it("--nkey reads a seed file and signs the server's nonce", async () => {
    const user = nkeys.createUser();
    const dir = tempDir("fleet");
    const config = join(dir, "nkey.conf");
    writeFileSync(config, `authorization { users = [ { nkey: ${user.getPublicKey()} } ] }\n`);
    const seed = join(dir, "user.nk");
    writeFileSync(seed, `${new TextDecoder().decode(user.getSeed())}\n`, { mode: 0o600 });
    const server = await startNatsServer(["-c", config]);
    servers.push(server);
    const refused = fakeIo();
    expect(await run(["tail", server.url, "--since", "all", "--no-follow"], refused)).toBe(3);
    const io = fakeIo();
    expect(await run(["publish", server.url, "--nkey", seed, "--spool", tempDir("fleet"), file], io)).toBe(0);
    expect(io.err()).toMatch(/published to AGENTSTREAM/);
    expect(io.err()).not.toContain("SU");
  });

  it("--creds (a user JWT and its seed, the server in operator mode): publish and tail work; no or a foreign creds is refused; the seed is never printed", async () => {
    const setup = writeOperatorSetup(tempDir("fleet"));
    const server = await startNatsServer(["-c", setup.config]);
    servers.push(server);
    const outputs: string[] = [];
    const io = fakeIo();
    expect(await run(["publish", server.url, "--creds", setup.credsFile, "--spool", tempDir("fleet"), "--host", "creds", file], io)).toBe(
      0,
    );
    expect(io.err()).toMatch(/published to AGENTSTREAM/);
    const tailed = fakeIo();
    const tailArgs = ["--since", "all", "--no-follow", "--to", "agentstream"];
    expect(await run(["tail", server.url, "--creds", setup.credsFile, ...tailArgs], tailed)).toBe(0);
    const converted = fakeIo();
    await run(["convert", "--to", "agentstream", file], converted);
    expect(tailed.out()).toBe(converted.out());
    // serve --nats takes the same: the session is listed through the creds.
    const fleet = createFleetSessions({
      connection: { servers: server.url, credsFile: setup.credsFile },
      stream: "AGENTSTREAM",
      filter: {},
      since: undefined,
      redact: true,
    });
    try {
      for (let waited = 0; fleet.list().length === 0 && waited < 20_000; waited += 50) await sleep(50);
      expect(fleet.list().map((s) => s.host)).toEqual(["creds"]);
    } finally {
      fleet.close();
    }

    const none = fakeIo();
    expect(await run(["tail", server.url, ...tailArgs], none)).toBe(3);
    expect(none.err()).toMatch(/cannot connect to NATS \(nats:\/\/127\.0\.0\.1:\d+\): .*(authorization|auth)/i);
    const stranger = fakeIo();
    expect(await run(["tail", server.url, "--creds", setup.strangerCredsFile, ...tailArgs], stranger)).toBe(3);
    expect(stranger.err()).toMatch(/cannot connect to NATS/);
    const missing = fakeIo();
    expect(await run(["publish", server.url, "--creds", join(tempDir("fleet"), "absent.creds"), file], missing)).toBe(2);
    expect(missing.err()).toMatch(/--creds: cannot read .*absent\.creds/);
    for (const done of [io, tailed, none, stranger, missing]) outputs.push(done.out(), done.err());
    // Neither the seed nor any part of it that could be used (it starts SU, the public key U).
    for (const output of outputs) expect(output).not.toContain(setup.seed.slice(2, 20));
  });

  it.skipIf(!hasOpenssl)("tls:// with --tls-ca trusts a private CA; without it the server's certificate is refused", async () => {
    const dir = tempDir("fleet");
    const sh = (args: string[]): void => {
      execFileSync("openssl", args, { cwd: dir, stdio: "ignore" });
    };
    sh([
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      "ca.key",
      "-out",
      "ca.pem",
      "-days",
      "1",
      "-subj",
      "/CN=agentstream-test-ca",
    ]);
    sh([
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      "server.key",
      "-out",
      "server.csr",
      "-subj",
      "/CN=localhost",
    ]);
    writeFileSync(join(dir, "ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
    sh([
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.pem",
      "-days",
      "1",
      "-extfile",
      "ext",
    ]);
    const server = await startNatsServer(["--tls", "--tlscert", join(dir, "server.pem"), "--tlskey", join(dir, "server.key")]);
    servers.push(server);
    const url = `tls://127.0.0.1:${server.port}`;
    const io = fakeIo();
    expect(await run(["publish", url, "--tls-ca", join(dir, "ca.pem"), "--spool", tempDir("fleet"), file], io)).toBe(0);
    const untrusted = fakeIo();
    expect(await run(["tail", url, "--since", "all", "--no-follow"], untrusted)).toBe(3);
    expect(untrusted.err()).toMatch(/cannot connect to NATS \(tls:/);
  });
});
