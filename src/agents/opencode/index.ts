export { opencode } from "./decode.ts";
export { opencodeSession } from "./session.ts";
