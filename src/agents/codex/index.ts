/** The Codex family: `codex exec --json` (incl. 0.40–0.43 and the legacy `{id,msg}` stream) and rollout session files. */
export { codex } from "./exec.ts";
export { codexSession } from "./rollout.ts";
