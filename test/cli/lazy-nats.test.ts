/**
 * The NATS client is loaded only by the commands that talk to NATS, and only when they do: `run`
 * without `--publish`, `serve` without `--nats` and the reading commands never load it
 * (docs/fleet.md). Each @nats-io module is replaced by one that notes it was loaded.
 */
import { describe, expect, it, vi } from "vitest";
import { commands } from "../../src/cli/run.ts";

const loaded = vi.hoisted(() => [] as string[]);
vi.mock("@nats-io/transport-node", async (original) => {
  loaded.push("@nats-io/transport-node");
  return await original();
});
vi.mock("@nats-io/jetstream", async (original) => {
  loaded.push("@nats-io/jetstream");
  return await original();
});

const load = async (name: string): Promise<void> => {
  await commands.find((c) => c.name === name)?.load();
};

describe("loading the NATS client", () => {
  it("run, serve and the reading commands load without it; publish loads it (so this test can tell)", async () => {
    for (const name of ["run", "serve", "render", "convert", "summary", "html"]) await load(name);
    expect(loaded).toEqual([]);
    await load("publish");
    expect(loaded).toContain("@nats-io/transport-node");
  });
});
