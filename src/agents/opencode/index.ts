export { opencode } from "./decode.ts";
