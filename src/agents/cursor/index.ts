export { cursor } from "./decode.ts";
