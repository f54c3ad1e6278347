/** GitHub Copilot CLI: its JSON output and its session files share one event vocabulary. */
export { copilot } from "./decode.ts";
