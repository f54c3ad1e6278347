import { serveMcp } from "../../mcp/server.ts";
import { RefusedPath } from "../../mcp/roots.ts";
import { DEFAULT_LOCATIONS_HELP } from "../../usage/discover.ts";
import { AgentStreamError } from "../../errors.ts";
import { defineCommand } from "../args.ts";
import { EXIT } from "../exit.ts";

export const mcp = defineCommand({
  name: "mcp",
  summary: "a Model Context Protocol server on stdio: agents list, summarize, read and count the saved sessions (docs/mcp.md)",
  usage: "mcp [path ...]",
  description: `Serves the saved agent sessions to an MCP client (Claude Code, Codex, Gemini CLI, ...) over
standard input and output, read-only: search (the index of \`search\`), list_sessions (as \`sessions\`),
session_summary (as \`summary --json\`), read_transcript (paged, secrets always redacted) and usage (as
\`usage --json\`). It reads the agents'
standard locations, or only the files and folders named; a path a client asks for outside them, or a
symbolic link leading out of them, is refused. Standard output carries the protocol only; diagnostics go
to standard error. No network listener. The client starts it: see docs/mcp.md for Claude Code, Codex and Gemini CLI.`,
  options: {},
  notes: `
${DEFAULT_LOCATIONS_HELP}`,
  examples: ["claude mcp add agentstream -- agentstream mcp", "agentstream mcp ~/.claude/projects ~/.codex/sessions"],
  async run({ positionals, io }) {
    // The protocol needs the process's own streams (the SDK's stdio transport reads and writes them as Node streams).
    try {
      await serveMcp({
        paths: positionals,
        env: io.env,
        stdin: process.stdin,
        stdout: process.stdout,
        log: (text) => void io.stderr.write(text),
      });
    } catch (error) {
      if (error instanceof RefusedPath) throw new AgentStreamError("io", error.message);
      throw error;
    }
    return EXIT.ok;
  },
});
