/**
 * OrderedMap against a native `Map` (the floor) and Immutable.js
 * `OrderedMap` (the usual library choice), at 100k and 1M string keys with
 * every key set twice. Run: `npm run bench -- ordered_map` (Node, Deno, Bun).
 *
 * @module
 */
import { bench, do_not_optimize, group, run, summary } from "mitata";
import { OrderedMap as ImmutableOrderedMap } from "immutable";
import { OrderedMap } from "../mod.ts";

for (const n of [100_000, 1_000_000]) {
  const keys = Array.from({ length: n }, (_, i) => `tool/${i.toString(36)}`);
  const native = new Map<string, number>();
  const builder = OrderedMap.builder<string, number>();
  for (const [i, k] of keys.entries()) {
    native.set(k, i);
    builder.set(k, i);
  }
  const ordered = builder.freeze();
  const probes = Array.from({ length: 1000 }, (_, i) => keys[(i * 7919) % n]!);

  group(`build ${n} keys, each set twice`, () => {
    summary(() => {
      bench("native Map", () => {
        const m = new Map<string, number>();
        for (const k of keys) m.set(k, 1);
        for (const k of keys) m.set(k, 2);
        return m;
      }).baseline(true);
      bench("OrderedMap builder -> freeze", () => {
        const b = OrderedMap.builder<string, number>();
        for (const k of keys) b.set(k, 1);
        for (const k of keys) b.set(k, 2);
        return b.freeze();
      });
      bench(
        "Immutable.js OrderedMap withMutations",
        () =>
          ImmutableOrderedMap<string, number>().withMutations((m) => {
            for (const k of keys) m.set(k, 1);
            for (const k of keys) m.set(k, 2);
          }),
      );
    });
  });

  group(`get x1000 in ${n} keys`, () => {
    summary(() => {
      bench("Map#get", () => {
        let s = 0;
        for (const k of probes) s += native.get(k)!;
        return do_not_optimize(s);
      }).baseline(true);
      bench("OrderedMap#get", () => {
        let s = 0;
        for (const k of probes) s += ordered.get(k)!;
        return do_not_optimize(s);
      });
    });
  });

  group(`iterate ${n} entries`, () => {
    summary(() => {
      bench("Map for..of", () => {
        let s = 0;
        for (const [, v] of native) s += v;
        return do_not_optimize(s);
      }).baseline(true);
      bench("OrderedMap for..of", () => {
        let s = 0;
        for (const [, v] of ordered) s += v;
        return do_not_optimize(s);
      });
    });
  });
}

await run();
