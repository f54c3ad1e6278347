import { sanitizeForTerminal } from "../../views/shared/sanitize.ts";
import { AgentStreamError } from "../../errors.ts";
import { loadWebAssets } from "../../server/assets.ts";
import { createCatalog } from "../../server/catalog.ts";
import { startServer } from "../../server/http-server.ts";
import { registryDir } from "../../server/registry.ts";
import { createSearchService } from "../../server/search-service.ts";
import { isLoopback } from "../../server/security.ts";
import type { SessionSource } from "../../server/session-source.ts";
import { defineCommand, type ParsedValues } from "../args.ts";
import { EXIT } from "../exit.ts";
import { natsConnectionOptions, parseSinceTime, requireServers, toNatsConnectOptions } from "../fleet-options.ts";
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

/** `--nats`: the sessions of a JetStream stream beside the files (docs/fleet.md). */
const natsOptions = {
  nats: {
    type: "string",
    valueHint: "<url>",
    description: "also list the sessions published to this NATS server (several: comma-separated), live (docs/fleet.md)",
  },
  since: {
    type: "string",
    valueHint: "<point>",
    description: "NATS: sessions active since a time (RFC 3339) or a duration back from now (default 24h; all: every one)",
  },
  agent: { type: "string", valueHint: "<name>", description: "NATS: only this agent (the dialect that read it: claude, codex, ...)" },
  "agent-host": { type: "string", valueHint: "<name>", description: "NATS: only the sessions published from this host" },
  session: { type: "string", valueHint: "<id>", description: "NATS: only this session" },
  ...natsConnectionOptions,
} as const;

const serveOptions = {
  ...serverOptions,
  "no-redact": {
    type: "boolean",
    default: false,
    description: "show secrets as they are; by default they are replaced with [REDACTED:<kind>] before anything is sent",
  },
  ...natsOptions,
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
the token on every request, and redacts secrets before anything leaves (docs/web.md). With --nats,
the sessions published to NATS JetStream (agentstream publish, run --publish) are listed too,
live, with the connection options of tail; a server that is down is shown as unavailable and
reconnected to, the files are served meanwhile. A path that does not exist yet (a run log folder
no run has written to) is served empty and its sessions are listed once it appears. Ctrl-C stops it.`,
  options: serveOptions,
  examples: [
    "agentstream serve ~/.agentstream/runs",
    "agentstream serve --port 8080 session.jsonl logs/",
    "agentstream serve --nats nats://nats.internal:4222 --since 2h",
  ],
  async run({ values, positionals, io }) {
    const fleet = await fleetSource(values, io);
    const catalog = await createCatalog({
      registry: registryDir(io.env),
      // With --nats and no path: the stream's sessions only (no walk of the current folder).
      paths: positionals.length === 0 && fleet === undefined ? ["."] : positionals,
      read: { dialect: "auto", redact: !values["no-redact"] },
      ...(fleet === undefined ? {} : { sources: [fleet] }),
    }).catch((error: unknown) => {
      fleet?.close();
      throw error;
    });
    // The page's search box: the index of the served logs, in the cache folder `agentstream search` uses.
    const search = createSearchService({
      env: io.env,
      onNotice: (line) => void io.stderr.write(`${sanitizeForTerminal(line, { keepNewlines: false })}\n`),
    });
    const server = await startServer({ catalog, assets: loadWebAssets(), host: values.host, port: parsePort(values.port), search });
    warnIfExposed(values.host, io);
    for (const missing of catalog.sources().filter((source) => source.kind === "path"))
      await io.stderr.write(
        `agentstream serve: ${sanitizeForTerminal(`${missing.description} ${missing.detail}`, { keepNewlines: false })}\n`,
      );
    if (values["no-redact"])
      await io.stderr.write("agentstream serve: --no-redact: secrets in the logs will be sent to the page as they are\n");
    if (fleet !== undefined) await io.stderr.write(`agentstream serve: also listing the sessions of ${fleet.status().description}\n`);
    await io.stdout.write(`${server.url}\n`);
    await io.stderr.write(`agentstream serve: open the URL above (Ctrl-C stops the server)\n`);
    await untilSignal();
    await server.close();
    return EXIT.ok;
  },
});

/**
 * `--nats`: the stream's sessions as a source of the catalog. The NATS client is loaded only here,
 * so `serve` without `--nats` never loads it.
 */
async function fleetSource(values: ParsedValues<typeof serveOptions>, io: CliIo): Promise<SessionSource | undefined> {
  if (values.nats === undefined) {
    const stray = (["since", "agent", "agent-host", "session", "creds", "nkey", "user", "password", "token"] as const).filter(
      (name) => values[name] !== undefined,
    );
    if (stray.length > 0) throw new AgentStreamError("usage", `--${stray[0]} reads NATS: add --nats <url>`);
    return undefined;
  }
  const servers = requireServers("serve --nats", values.nats);
  const since = parseSinceTime(values.since);
  const filter = {
    ...(values.session === undefined ? {} : { session: values.session }),
    ...(values.agent === undefined ? {} : { agent: values.agent }),
    ...(values["agent-host"] === undefined ? {} : { host: values["agent-host"] }),
  };
  const connection = toNatsConnectOptions(servers, values, io);
  const { createFleetSessions } = await import("../../fleet/fleet-sessions.ts");
  return createFleetSessions({
    connection,
    stream: values.stream,
    filter,
    since,
    redact: !values["no-redact"],
    // The page shows the stream's state too; whoever started the server sees it here.
    onStatus: ({ description, state, detail }) => {
      if (state === "connecting") return;
      // The reason may quote the server: shown sanitized, like everything that reaches a terminal.
      const line = `NATS ${description}: ${state}${detail === null ? "" : ` (${detail})`}`;
      void io.stderr.write(`agentstream serve: ${sanitizeForTerminal(line, { keepNewlines: false })}\n`);
    },
  });
}

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
