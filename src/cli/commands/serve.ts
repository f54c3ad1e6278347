import { AgentStreamError } from "../../errors.ts";
import { loadWebAssets } from "../../server/assets.ts";
import { createCatalog } from "../../server/catalog.ts";
import { startServer } from "../../server/http-server.ts";
import { registryDir } from "../../server/registry.ts";
import { isLoopback } from "../../server/security.ts";
import { defineCommand } from "../args.ts";
import { EXIT } from "../exit.ts";
import type { CliIo } from "../io.ts";

/** Options `serve` and `run --serve` share. */
const serverOptions = {
  host: {
    type: "string",
    default: "127.0.0.1",
    valueHint: "<addr>",
    description: "the address to listen on (default 127.0.0.1; anything else is reachable by others: a warning says so)",
  },
  port: { type: "string", default: "0", valueHint: "<n>", description: "the port (default 0: any free one)" },
} as const;

export const serve = defineCommand({
  name: "serve",
  summary: "a local web page: sessions found under paths, live runs streaming as the agent works",
  usage: "serve [options] [path ...]",
  description: `Serves a local web app: the sessions found under the given files and folders (saved logs of any
dialect, detected from their first records; the logs of \`agentstream run --log <dir>\`, streamed live
while their run goes on; the runs of \`agentstream run --serve\` on this machine), a session page
that streams as the agent works, several side by side. Prints the URL to open (with a one-time
token, exchanged for a cookie on first load). Listens on 127.0.0.1 only, checks Host, Origin and
the token on every request, and redacts secrets before anything leaves (docs/web.md). Ctrl-C stops it.`,
  options: {
    ...serverOptions,
    "no-redact": {
      type: "boolean",
      default: false,
      description: "show secrets as they are; by default they are replaced with [REDACTED:<kind>] before anything is sent",
    },
  },
  examples: ["agentstream serve ~/.agentstream/runs", "agentstream serve --port 8080 session.jsonl logs/"],
  async run({ values, positionals, io }) {
    const catalog = await createCatalog({
      registry: registryDir(io.env),
      paths: positionals.length === 0 ? ["."] : positionals,
      read: { dialect: "auto", redact: !values["no-redact"] },
    });
    const server = await startServer({ catalog, assets: loadWebAssets(), host: values.host, port: parsePort(values.port) });
    warnIfExposed(values.host, io);
    if (values["no-redact"])
      await io.stderr.write("agentstream serve: --no-redact: secrets in the logs will be sent to the page as they are\n");
    await io.stdout.write(`${server.url}\n`);
    await io.stderr.write(`agentstream serve: open the URL above (Ctrl-C stops the server)\n`);
    await untilSignal();
    await server.close();
    return EXIT.ok;
  },
});

/** `--port`: 0 to 65535. */
export function parsePort(flag: string): number {
  const port = Number(flag);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new AgentStreamError("usage", `--port takes 0 to 65535, not "${flag}"`);
  return port;
}

/** Binding beyond loopback puts the sessions within reach of the network: say so every time. */
export function warnIfExposed(host: string, io: CliIo): void {
  if (!isLoopback(host))
    void io.stderr.write(
      `agentstream: warning: listening on ${host}, not 127.0.0.1: anyone who can reach this address and has the token can read the sessions\n`,
    );
}

/** Resolves on SIGINT, SIGTERM or SIGHUP (the server runs until then). */
function untilSignal(): Promise<void> {
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      for (const signal of signals) process.off(signal, stop);
      resolve();
    };
    for (const signal of signals) process.on(signal, stop);
  });
}
