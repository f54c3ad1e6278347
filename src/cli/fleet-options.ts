/**
 * The options of the commands that talk to NATS (publish, tail, run --publish): connection and
 * credentials, the stream, the spool (docs/fleet.md), and how they become fleet options.
 */
import { hostname, homedir } from "node:os";
import { join } from "node:path";
import { AgentStreamError } from "../errors.ts";
import type { NatsConnectOptions } from "../fleet/connection.ts";
import type { PublisherOptions } from "../fleet/publisher.ts";
import type { StartPoint } from "../fleet/reader.ts";
import { DEFAULT_STREAM } from "../fleet/subjects.ts";
import { parseDuration } from "../run/duration.ts";
import type { OptionSpecs, ParsedValues } from "./args.ts";
import type { CliIo } from "./io.ts";

/** Who we are to the server. Secrets given here are never printed. */
export const natsConnectionOptions = {
  creds: { type: "string", valueHint: "<file>", description: "NATS: a .creds file (JWT and NKey seed)" },
  nkey: { type: "string", valueHint: "<file>", description: "NATS: a file holding an NKey seed" },
  user: { type: "string", valueHint: "<name>", description: "NATS: user name (or in the URL: nats://user:pass@host)" },
  password: { type: "string", valueHint: "<pass>", description: "NATS: password (default: $NATS_PASSWORD)" },
  token: { type: "string", valueHint: "<token>", description: "NATS: token (default: $NATS_TOKEN)" },
  "tls-ca": { type: "string", valueHint: "<file>", description: "NATS: CA certificate(s) to trust" },
  "tls-cert": { type: "string", valueHint: "<file>", description: "NATS: client certificate (with --tls-key)" },
  "tls-key": { type: "string", valueHint: "<file>", description: "NATS: client key" },
  stream: { type: "string", default: DEFAULT_STREAM, valueHint: "<name>", description: `JetStream stream (default: ${DEFAULT_STREAM})` },
} as const satisfies OptionSpecs;

/** Where and how events are published. */
export const publishingOptions = {
  host: { type: "string", valueHint: "<name>", description: "the host name in subjects (default: this machine's)" },
  "max-age": {
    type: "string",
    valueHint: "<dur>",
    description: "a stream created by us drops events older than this (default: 0, kept until --max-bytes)",
  },
  "max-bytes": {
    type: "string",
    valueHint: "<size>",
    description: "a stream created by us keeps at most this much (e.g. 10G; default: no limit)",
  },
  "duplicate-window": {
    type: "string",
    default: "10m",
    valueHint: "<dur>",
    description: "a stream created by us stores a re-sent event once within this window (default: 10m)",
  },
  spool: {
    type: "string",
    valueHint: "<dir>",
    description: "where events wait while NATS is down (default: $XDG_STATE_HOME/agentstream/spool)",
  },
  "spool-max": {
    type: "string",
    default: "256M",
    valueHint: "<size>",
    description: "the spool's size at most; beyond it events are dropped and counted (default: 256M)",
  },
  "flush-timeout": {
    type: "string",
    default: "10s",
    valueHint: "<dur>",
    description: "at the end, wait this long for NATS to take what is left; the rest stays in the spool (default: 10s)",
  },
} as const satisfies OptionSpecs;

type ConnectionValues = ParsedValues<typeof natsConnectionOptions>;
type PublishingValues = ParsedValues<typeof publishingOptions>;

/** The URL(s) argument and the credential flags, as the fleet takes them. */
export function toNatsConnectOptions(servers: string, values: ConnectionValues, io: CliIo): NatsConnectOptions {
  const password = values.password ?? nonEmpty(io.env.NATS_PASSWORD);
  const token = values.token ?? nonEmpty(io.env.NATS_TOKEN);
  return {
    servers,
    ...(values.user === undefined ? {} : { user: values.user }),
    ...(password === undefined ? {} : { password }),
    ...(token === undefined ? {} : { token }),
    ...(values.creds === undefined ? {} : { credsFile: values.creds }),
    ...(values.nkey === undefined ? {} : { nkeyFile: values.nkey }),
    ...(values["tls-ca"] === undefined ? {} : { tlsCaFile: values["tls-ca"] }),
    ...(values["tls-cert"] === undefined ? {} : { tlsCertFile: values["tls-cert"] }),
    ...(values["tls-key"] === undefined ? {} : { tlsKeyFile: values["tls-key"] }),
  };
}

/** Everything a publisher needs from the command line; `onNotice` prints its lines. */
export function toPublisherOptions(
  servers: string,
  values: ConnectionValues & PublishingValues,
  io: CliIo,
  onNotice: (text: string) => void,
): PublisherOptions {
  const maxAge = values["max-age"];
  const maxBytes = values["max-bytes"];
  return {
    connection: toNatsConnectOptions(servers, values, io),
    stream: {
      name: values.stream,
      ...(maxAge === undefined ? {} : { maxAgeMs: parseDuration("--max-age", maxAge) }),
      ...(maxBytes === undefined ? {} : { maxBytes: parseSize("--max-bytes", maxBytes) }),
      duplicateWindowMs: parseDuration("--duplicate-window", values["duplicate-window"]),
    },
    host: values.host ?? hostname(),
    spoolDir: values.spool ?? defaultSpoolDir(io),
    spoolMaxBytes: parseSize("--spool-max", values["spool-max"]),
    onNotice,
  };
}

/** `$XDG_STATE_HOME/agentstream/spool`, else `~/.local/state/agentstream/spool` (the XDG default). */
function defaultSpoolDir(io: CliIo): string {
  const state = nonEmpty(io.env.XDG_STATE_HOME) ?? join(nonEmpty(io.env.HOME) ?? homedir(), ".local", "state");
  return join(state, "agentstream", "spool");
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  "": 1,
  b: 1,
  k: 1 << 10,
  kb: 1 << 10,
  m: 1 << 20,
  mb: 1 << 20,
  g: 1 << 30,
  gb: 1 << 30,
  t: 2 ** 40,
  tb: 2 ** 40,
};

/** `512K`, `256M`, `10G` (powers of 1024), or a number of bytes. */
export function parseSize(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = SIZE_UNITS[(match?.[2] ?? "").toLowerCase()];
  if (match === null || unit === undefined || Number(match[1]) <= 0)
    throw new AgentStreamError("usage", `${flag} takes a size such as 512K, 256M or 10G, not "${text}"`);
  return Math.floor(Number(match[1]) * unit);
}

/** A NATS URL is required and comes first: `agentstream tail nats://127.0.0.1:4222`. */
export function requireServers(command: string, positional: string | undefined): string {
  if (positional === undefined || positional === "-" || !/^[a-z]+:\/\/|^[^/\s]+:\d+/i.test(positional))
    throw new AgentStreamError("usage", `name the NATS server first: agentstream ${command} nats://127.0.0.1:4222 ...`);
  return positional;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/**
 * `--since`: `all`; a stream sequence (a whole number: what `tail --to agentstream` shows as the
 * position); an RFC 3339 time; or a duration back from now (`10m`, `2h`: a unit is required, so
 * a bare number is always a sequence).
 */
export function parseSince(text: string | undefined, now: Date = new Date()): StartPoint | undefined {
  if (text === undefined) return undefined;
  const value = text.trim();
  if (value === "all") return { kind: "all" };
  if (value === "new") return { kind: "new" };
  if (/^\d+$/.test(value)) {
    const sequence = Number(value);
    return sequence <= 1 ? { kind: "all" } : { kind: "sequence", sequence };
  }
  if (/^\d+(?:\.\d+)?(ms|s|m|h)$/.test(value)) return { kind: "time", time: new Date(now.getTime() - parseDuration("--since", value)) };
  const time = /^\d{4}-\d{2}-\d{2}/.test(value) ? new Date(value) : undefined;
  if (time !== undefined && !Number.isNaN(time.getTime())) return { kind: "time", time };
  throw new AgentStreamError(
    "usage",
    `--since takes all, a stream sequence (1234), a time (2026-11-25T14:00:00Z) or a duration back from now (10m), not "${text}"`,
  );
}

/** `serve --since`: a time or a duration back from now (`all`: no limit); the default is 24 hours back. */
export function parseSinceTime(text: string | undefined, now: Date = new Date()): Date | undefined {
  const point = parseSince(text ?? "24h", now);
  if (point?.kind === "time") return point.time;
  if (point?.kind === "all") return undefined;
  throw new AgentStreamError(
    "usage",
    `serve --since takes a time (2026-11-25T14:00:00Z), a duration back from now (24h) or all, not "${text}"`,
  );
}
