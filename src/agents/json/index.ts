export { json } from "./decode.ts";
