/**
 * The usage log's writer in a child process (run by `tests/_child.ts`'s
 * `check` mode): it says it is ready, waits for a go file, then appends its
 * events as fast as it can, so two children's appends overlap.
 *
 * @module
 */
import { existsSync } from "node:fs";
import process from "node:process";
import { activationEvent } from "../mod.ts";
import { appendActivationEvent } from "../lib/load.ts";

/**
 * Append `count` events named `<tag>-<i>`, name and origin padded to `pad` characters, once
 * `go` exists.
 *
 * @param log The usage log.
 * @param go The file whose existence starts the appends.
 * @param tag The writer's tag.
 * @param count How many events.
 * @param pad How long each name is.
 */
export function appendMany(log: string, go: string, tag: string, count: number, pad: number): void {
  process.stdout.write("ready\n");
  const wait = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + 60_000;
  while (!existsSync(go)) {
    if (Date.now() > deadline) throw new Error("no go file within 60 s");
    Atomics.wait(wait, 0, 0, 2);
  }
  for (let i = 0; i < count; i++) {
    const name = `${tag}-${i}-`.padEnd(pad, tag);
    const origin = "".padEnd(pad, tag);
    appendActivationEvent(log, activationEvent({ name, origin, trigger: "model" }, i));
  }
}
