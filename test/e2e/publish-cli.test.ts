/**
 * `publish` as a user runs it (the built binary): the process ends by itself once its report is written, whatever the
 * server does. A process of its own and the NATS client's 5 s connect timeout: the slow project (vitest.config.ts).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const capture = join(import.meta.dirname, "../fixtures/claude/edit-write-todowrite-file-changed-plan.ndjson");

describe("publish ends by itself (built binary)", () => {
  const bin = join(repoRoot, "dist/cli/bin.js");
  // The client leaves the socket of an attempt that timed out open; the process must still end once its report is
  // written, without a process.exit cutting it off: the attempt's sockets are closed with the publisher.
  it.skipIf(!existsSync(bin))(
    "to a server that accepts the connection and never answers",
    async () => {
      const held: Socket[] = [];
      const silent = createServer((socket) => void held.push(socket));
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const { port } = silent.address() as { port: number };
      try {
        const args = [bin, "publish", `nats://127.0.0.1:${port}`, "--spool", tempDir("spool"), "--flush-timeout", "100ms", capture];
        const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
        let err = "";
        child.stderr.on("data", (chunk: Buffer) => {
          err += chunk.toString();
        });
        const killer = setTimeout(() => child.kill("SIGKILL"), 30_000);
        const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
          child.on("close", (exitCode, exitSignal) => resolve([exitCode, exitSignal])),
        );
        clearTimeout(killer);
        expect(signal).toBeNull();
        expect(code).toBe(3);
        expect(err).toMatch(/still waiting in /);
        expect(held.length).toBeGreaterThan(0);
      } finally {
        for (const socket of held) socket.destroy();
        silent.close();
      }
    },
    40_000,
  );
});
