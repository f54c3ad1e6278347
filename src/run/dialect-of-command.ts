/** The dialect each agent CLI writes, by command name (`agentstream run -- claude ...`). */
const DIALECT_OF_COMMAND: Readonly<Record<string, string>> = {
  claude: "claude",
  codex: "codex",
  gemini: "gemini",
  opencode: "opencode",
  "cursor-agent": "cursor",
  amp: "amp",
  qwen: "qwen",
  cline: "cline",
  aider: "aider",
  copilot: "copilot",
};

/** The dialect named by the command's file name (`/usr/bin/claude` → `claude`), or `auto` when it names no known agent. */
export function dialectOfCommand(command: string): string {
  const base = command.split(/[\\/]/).pop() ?? command;
  const name = base.replace(/\.(exe|cmd|js|mjs)$/i, "").toLowerCase();
  return DIALECT_OF_COMMAND[name] ?? "auto";
}
