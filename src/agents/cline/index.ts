export { cline } from "./decode.ts";
