/**
 * Opening a page at one event (`html --at`, a search hit): the block that shows it is the one whose first event
 * (`data-seq`) is the latest at or before it (a message's block starts at its `message.started`, a tool's at its
 * call). Its collapsed parents are opened, it is marked and scrolled to, and it gets the id `event-<seq>`.
 */
export function scrollToEvent(root: HTMLElement, seq: number): HTMLElement | undefined {
  let best: HTMLElement | undefined;
  let bestSeq = -1;
  root.querySelectorAll<HTMLElement>("[data-seq]").forEach((element) => {
    const at = Number(element.dataset.seq);
    if (at <= seq && at > bestSeq) {
      best = element;
      bestSeq = at;
    }
  });
  if (best === undefined) return undefined;
  for (let parent = best.parentElement; parent !== null; parent = parent.parentElement) {
    if (parent instanceof HTMLDetailsElement) parent.open = true;
  }
  if (best instanceof HTMLDetailsElement) best.open = true;
  best.classList.add("as-target");
  if (best.id === "") best.id = `event-${seq}`;
  best.scrollIntoView({ block: "start" });
  return best;
}
