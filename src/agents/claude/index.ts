/** The Claude family: Claude Code stream-json, its session transcripts, and the agents that speak Claude's wire (Amp, Qwen Code). */
export { amp } from "./amp.ts";
export { qwen } from "./qwen.ts";
export { claudeSession } from "./session.ts";
export { claude } from "./stream-json.ts";
