/**
 * How a tool answers: structured JSON (`structuredContent`) with a short text rendering of it (`content`, what
 * most clients hand the model), or a tool error (`isError`) whose message says what to do. A mistake of the
 * caller is never a protocol error and never ends the server.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AgentStreamError } from "../errors.ts";
import { RefusedPath } from "./roots.ts";

export function answer(structured: Record<string, unknown>, text: string): CallToolResult {
  return { structuredContent: structured, content: [{ type: "text", text }] };
}

function toolError(message: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text: message }] };
}

/**
 * Runs a tool's work: a refused path or a bad argument (an `AgentStreamError` from the shared option checks)
 * becomes a tool error with its message; anything else too, said on stderr with its stack (a bug of ours).
 */
export async function guarded(tool: string, work: () => Promise<CallToolResult>, log: (text: string) => void): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RefusedPath) return toolError(error.message);
    if (AgentStreamError.is(error)) return toolError(optionWords(error.message));
    log(`agentstream mcp: ${tool} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return toolError(
      `${tool} failed: ${error instanceof Error ? error.message : String(error)}. Try other arguments; the server's log (stderr) has the details.`,
    );
  }
}

/** The shared checks name command-line options (`--since takes ...`): over MCP they are the tool's arguments. */
function optionWords(message: string): string {
  return message.replace(/--([a-z][a-z-]*)/g, (_, name: string) => `"${name}"`);
}
