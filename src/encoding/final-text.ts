/** The final answer of a session, as the chat-UI writers (ai-sdk, ag-ui) must show it. */

/** True when `answer` has text that none of `shown` (nor all of them together) already shows. */
export function isUnshown(answer: string, shown: readonly string[]): boolean {
  const wanted = answer.trim();
  if (wanted === "") return false;
  if (shown.some((text) => text.includes(wanted))) return false;
  return !shown.join("").includes(wanted) && !shown.join("\n").includes(wanted);
}
