/**
 * A real nats-server (Debian's 2.9.10, `-js`) for the fleet suites: one per suite, on a free
 * loopback port, with a temporary store. Suites skip with one line when nats-server is absent
 * (scripts/install-test-deps.sh installs it).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer, connect as connectTcp } from "node:net";
import { tempDir } from "./temp.ts";

const CANDIDATES = [process.env.NATS_SERVER, "/usr/sbin/nats-server", "/usr/bin/nats-server", "nats-server"];

/** The nats-server binary, or undefined when none is installed. */
export const natsServerPath: string | undefined = CANDIDATES.find(
  (path) => path !== undefined && path !== "" && spawnSync(path, ["--version"], { stdio: "ignore" }).status === 0,
);

/** Why the NATS suites skip, for `describe.skipIf(...)` names. */
export const NATS_SKIP_REASON = "nats-server not installed (scripts/install-test-deps.sh installs it): NATS suites skipped";

export interface NatsServer {
  readonly url: string;
  readonly port: number;
  readonly storeDir: string;
  /** The running process (undefined while stopped). */
  readonly process: ChildProcess | undefined;
  /** SIGKILL, as a crash would: nothing is flushed or said goodbye to. */
  kill(): Promise<void>;
  /** Starts it again on the same port and store. */
  restart(): Promise<void>;
  /** SIGSTOP: the connection stays open and nothing answers (a network pause). */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
  /** Stops it and removes the store. */
  stop(): Promise<void>;
}

/** A free loopback TCP port. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts nats-server with JetStream on 127.0.0.1; `extraArgs` for auth (`--user`, `--auth`); `port` when a client already waits on one. */
export async function startNatsServer(extraArgs: readonly string[] = [], port?: number): Promise<NatsServer> {
  if (natsServerPath === undefined) throw new Error(NATS_SKIP_REASON);
  const binary = natsServerPath;
  port ??= await freePort();
  // Kept until the test file ends: a killed server may still be writing into it.
  const storeDir = tempDir("nats", { until: "file" });
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn(binary, ["-js", "-a", "127.0.0.1", "-p", String(port), "-sd", storeDir, ...extraArgs], { stdio: "ignore" });
    await waitForPort(port as number);
  };
  const kill = async (): Promise<void> => {
    const running = child;
    child = undefined;
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill("SIGCONT");
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    get process() {
      return child;
    },
    kill,
    restart: start,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    async stop() {
      await kill();
    },
  };
}

async function waitForPort(port: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connectTcp(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nats-server did not listen on 127.0.0.1:${port}`);
}
