/** The Gemini family: Gemini CLI stream-json and its session files, and Qwen Code's session files (a Gemini CLI fork). */
export { gemini } from "./cli.ts";
export { geminiSession } from "./session.ts";
export { qwenSession } from "./qwen-session.ts";
