/**
 * Connecting to NATS the way users expect (docs/fleet.md): one or several servers (comma-separated
 * URLs), user and password (flags or in the URL), a token, an NKey seed file, a `.creds` file, TLS.
 * Secrets are read here and handed to the client; they never appear in anything we print
 * (`describeServers` masks a password or token written in a URL).
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";
import {
  connect,
  credsAuthenticator,
  nkeyAuthenticator,
  type ConnectionOptions,
  type NatsConnection,
  type NodeConnectionOptions,
} from "@nats-io/transport-node";
import { AgentStreamError } from "../errors.ts";

/** How to reach NATS and who we are. */
export interface NatsConnectOptions {
  /** `nats://host:4222`, `tls://…`, several separated by commas; user and password may be in a URL. */
  readonly servers: string;
  readonly user?: string;
  readonly password?: string;
  readonly token?: string;
  /** A `.creds` file (JWT and NKey seed), as `nsc` writes it. */
  readonly credsFile?: string;
  /** A file holding an NKey seed (`SU…`). */
  readonly nkeyFile?: string;
  readonly tlsCaFile?: string;
  readonly tlsCertFile?: string;
  readonly tlsKeyFile?: string;
  /** Shown on the server's monitoring pages. */
  readonly name?: string;
}

/** The servers as they may be printed: `nats://alice:***@host:4222`. */
export function describeServers(servers: string): string {
  return splitServers(servers)
    .map((url) => url.replace(/^([a-z]+:\/\/)?([^@/]*)@/i, (_all, scheme: string | undefined, auth: string) => maskAuth(scheme, auth)))
    .join(",");
}

function maskAuth(scheme: string | undefined, auth: string): string {
  const colon = auth.indexOf(":");
  // `user:pass@` keeps the user; a bare `token@` is all secret.
  return `${scheme ?? ""}${colon === -1 ? "***" : `${auth.slice(0, colon)}:***`}@`;
}

function splitServers(servers: string): string[] {
  return servers
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Client options from ours; files are read now, so a missing one is said before anything starts. */
export function toConnectionOptions(options: NatsConnectOptions): NodeConnectionOptions {
  const urls = splitServers(options.servers);
  if (urls.length === 0) throw new AgentStreamError("usage", "name a NATS server: nats://127.0.0.1:4222 (several: comma-separated)");
  const fromUrl = credentialsInUrls(urls);
  const client: ConnectionOptions & { tls?: NodeConnectionOptions["tls"] } = {
    servers: urls.map(stripCredentials),
    name: options.name ?? "agentstream",
  };
  const user = options.user ?? fromUrl.user;
  const password = options.password ?? fromUrl.password;
  const token = options.token ?? fromUrl.token;
  if (user !== undefined) client.user = user;
  if (password !== undefined) client.pass = password;
  if (token !== undefined) client.token = token;
  if (options.credsFile !== undefined) client.authenticator = credsAuthenticator(readSecret("--creds", options.credsFile));
  else if (options.nkeyFile !== undefined) {
    const seed = new TextDecoder().decode(readSecret("--nkey", options.nkeyFile)).trim();
    client.authenticator = nkeyAuthenticator(new TextEncoder().encode(seed));
  }
  const tls = tlsOptions(options, urls);
  if (tls !== undefined) client.tls = tls;
  return client;
}

function tlsOptions(options: NatsConnectOptions, urls: readonly string[]): NodeConnectionOptions["tls"] {
  const files = { caFile: options.tlsCaFile, certFile: options.tlsCertFile, keyFile: options.tlsKeyFile };
  const given = Object.entries(files).filter(([, path]) => path !== undefined) as [string, string][];
  if ((files.certFile === undefined) !== (files.keyFile === undefined))
    throw new AgentStreamError("usage", "--tls-cert and --tls-key go together (a client certificate and its key)");
  for (const [, path] of given) readSecret("--tls-*", path); // fail now, with the file named, not in the handshake
  if (given.length === 0 && !urls.some((url) => url.startsWith("tls://"))) return undefined;
  return Object.fromEntries(given);
}

interface UrlCredentials {
  user?: string;
  password?: string;
  token?: string;
}

/** `nats://alice:secret@host` → user alice, password secret; `nats://s3cr3t@host` → a token. */
function credentialsInUrls(urls: readonly string[]): UrlCredentials {
  for (const url of urls) {
    const auth = /^[a-z]+:\/\/([^@/]*)@/i.exec(url)?.[1];
    if (auth === undefined || auth === "") continue;
    const colon = auth.indexOf(":");
    if (colon === -1) return { token: decodeURIComponent(auth) };
    return { user: decodeURIComponent(auth.slice(0, colon)), password: decodeURIComponent(auth.slice(colon + 1)) };
  }
  return {};
}

function stripCredentials(url: string): string {
  return url.replace(/^([a-z]+:\/\/)?[^@/]*@/i, (_all, scheme: string | undefined) => scheme ?? "");
}

function readSecret(flag: string, path: string): Uint8Array {
  try {
    return readFileSync(path);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new AgentStreamError("usage", `${flag}: cannot read ${path}: ${reason}`, { cause });
  }
}

/**
 * Connects once (a server that is down fails at once, so the caller can retry on its own terms or
 * give up); once connected, the client reconnects for ever after a loss, to any of the servers.
 * `abort` gives up an attempt under way (the caller is closing).
 */
export async function connectNats(
  options: NatsConnectOptions,
  tuning: Partial<ConnectionOptions> = {},
  abort?: AbortSignal,
): Promise<NatsConnection> {
  const client = toConnectionOptions(options);
  return closingFailedDials(
    () =>
      connect({
        ...client,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 250,
        reconnectJitter: 100,
        timeout: 5000,
        // Without it the client builds two Error objects (with stack traces) per publish, in case it
        // fails: a large share of the publisher's CPU (docs/fleet.md).
        noAsyncTraces: true,
        ...tuning,
      }),
    abort,
  );
}

/**
 * Runs a connection attempt and destroys the sockets it dialled when it fails or is aborted. The client
 * leaves the socket of an attempt that timed out open (a server that accepts and never answers, or a dial
 * still waiting for one), and that socket alone would keep the process alive after its last line.
 * The sockets are those Node reports created (the `net.client.socket` channel) while the attempt runs.
 */
async function closingFailedDials<T>(attempt: () => Promise<T>, abort: AbortSignal | undefined): Promise<T> {
  const dialled: Socket[] = [];
  const onSocket = (message: unknown): void => {
    dialled.push((message as { socket: Socket }).socket);
  };
  const destroyAll = (): void => {
    for (const socket of dialled) socket.destroy();
  };
  subscribe("net.client.socket", onSocket);
  abort?.addEventListener("abort", destroyAll);
  try {
    return await attempt();
  } catch (error) {
    destroyAll();
    throw error;
  } finally {
    unsubscribe("net.client.socket", onSocket);
    abort?.removeEventListener("abort", destroyAll);
  }
}
