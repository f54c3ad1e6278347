/** The Gemini family: Gemini CLI stream-json and its session files. */
export { gemini } from "./cli.ts";
export { geminiSession } from "./session.ts";
