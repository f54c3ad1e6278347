export { aider } from "./decode.ts";
