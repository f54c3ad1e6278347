export { harmony } from "./decode.ts";
