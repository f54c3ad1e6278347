/**
 * agentstream/run: run an agent CLI and stream its events (Node only; the core entry stays
 * browser-safe). docs/run.md.
 */
export { runAgent, RUN_EXIT, type AgentRun, type RunAgentOptions, type RunEnd, type RunResult } from "./run-agent.ts";
export type { RunLogFiles } from "./run-agent.ts";
export { parseDuration } from "./duration.ts";
export { dialectOfCommand } from "./dialect-of-command.ts";
