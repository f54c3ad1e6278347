/**
 * The queue between the agent's pipes and `for await` over `run.events`: every event once and in
 * order, one consumer, the producer told when the consumer falls behind and when it caught up or
 * left the loop.
 */
import { describe, expect, it } from "vitest";
import { createEventQueue } from "../../src/run/_event-queue.ts";

function queueWithFlow(highWater: number) {
  const flow: string[] = [];
  const queue = createEventQueue<number>({ highWater, onFull: () => flow.push("full"), onDrained: () => flow.push("drained") });
  return { queue, flow };
}

describe("createEventQueue", () => {
  it("hands out every item in order, those pushed while the consumer waits too, and ends on close", async () => {
    const { queue } = queueWithFlow(100);
    queue.push(1);
    queue.push(2);
    const seen: number[] = [];
    const consumed = (async () => {
      for await (const item of queue) seen.push(item);
    })();
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (let i = 3; i <= 1000; i++) queue.push(i);
    await new Promise((resolve) => setImmediate(resolve));
    queue.push(1001);
    queue.close();
    await consumed;
    expect(seen).toEqual(Array.from({ length: 1001 }, (_, i) => i + 1));
  });

  it("has one consumer: a second iteration rejects", async () => {
    const { queue } = queueWithFlow(100);
    queue.close();
    for await (const _ of queue) expect.unreachable();
    await expect(queue[Symbol.asyncIterator]().next()).rejects.toThrow(/only once/);
  });

  it("says when the waiting items pass the high-water mark, and when they are all taken", async () => {
    const { queue, flow } = queueWithFlow(3);
    for (let i = 0; i < 10; i++) queue.push(i); // nobody iterates yet: no pause for a consumer that may never come
    expect(flow).toEqual([]);
    const iterator = queue[Symbol.asyncIterator]();
    queue.push(10);
    expect(flow).toEqual(["full"]);
    for (let i = 0; i <= 10; i++) expect(await iterator.next()).toEqual({ value: i, done: false });
    expect(flow).toEqual(["full"]);
    queue.close();
    expect(await iterator.next()).toEqual({ value: undefined, done: true });
    expect(flow).toEqual(["full", "drained"]);
  });

  it("a consumer that breaks out releases the held items and a paused producer, and later pushes are dropped", async () => {
    const { queue, flow } = queueWithFlow(2);
    const seen: number[] = [];
    const consumed = (async () => {
      for await (const item of queue) {
        seen.push(item);
        if (item === 1) break;
      }
    })();
    for (let i = 0; i < 5; i++) queue.push(i);
    await consumed;
    expect(seen).toEqual([0, 1]);
    expect(flow).toEqual(["full", "drained"]);
    queue.push(5);
    queue.close();
    expect(flow).toEqual(["full", "drained"]);
  });
});
