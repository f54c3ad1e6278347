/**
 * `agentstream mcp`: a Model Context Protocol server on stdio (the official TypeScript SDK), read-only, over the
 * session stores or the paths it was started with (docs/mcp.md). Standard output carries the protocol and nothing
 * else; what the server has to say goes to standard error. It opens no network listener.
 */
import type { Readable, Writable } from "node:stream";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { VERSION } from "../version.ts";
import { sessionRoots } from "./roots.ts";
import { SessionStore } from "./store.ts";
import { registerTools } from "./tools.ts";

export interface McpServeOptions {
  /** Files and folders to read; empty: the agents' standard locations. */
  readonly paths: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: Readable;
  readonly stdout: Writable;
  /** Diagnostics (standard error). */
  readonly log: (text: string) => void;
}

const INSTRUCTIONS = `Read-only access to the coding-agent sessions saved on this machine (Claude Code, Codex, Gemini CLI, ...).
search finds what any agent did (words, phrases, a regex, a tool, a file touched); list_sessions finds sessions
(filters: agent, since/until, project); session_summary and read_transcript take a session id or log path from
either; usage reports tokens and cost. Everything is redacted; transcripts are paged.`;

/**
 * Serves until the client closes standard input. Throws `RefusedPath` at once when a path named does not exist.
 */
export async function serveMcp(options: McpServeOptions): Promise<void> {
  const roots = sessionRoots(options.paths, options.env);
  const server = new McpServer({ name: "agentstream", version: VERSION }, { instructions: INSTRUCTIONS });
  const store = new SessionStore(roots, options.env, options.log);
  registerTools(server, store, options.log);
  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    // The transport does not watch for the end of its input: a client that goes away closes it.
    options.stdin.once("end", resolve);
    options.stdin.once("close", resolve);
  });
  await server.connect(transport);
  const where = roots.real.length === 0 ? "no session store found" : roots.real.join(", ");
  options.log(`agentstream mcp ${VERSION}: serving ${where} on stdio (read-only)\n`);
  await closed;
  await server.close();
  store.close();
}
