/**
 * OrderedMap against a native `Map` (the floor) and Immutable.js
 * `OrderedMap` (the usual library choice), at 100k string keys with every
 * key set twice (1M took 20 s a runtime and said the same). Run: `npm run bench -- ordered_map`.
 *
 * @module
 */
import { OrderedMap as ImmutableOrderedMap } from "immutable";
import { OrderedMap } from "../mod.ts";
import { timeGroup } from "./_harness.ts";

const n = 100_000;
const keys = Array.from({ length: n }, (_, i) => `tool/${i.toString(36)}`);
const native = new Map<string, number>();
const builder = OrderedMap.builder<string, number>();
for (const [i, k] of keys.entries()) {
  native.set(k, i);
  builder.set(k, i);
}
const ordered = builder.freeze();
const probes = Array.from({ length: 1000 }, (_, i) => keys[(i * 7919) % n]!);

await timeGroup("ordered_map", "build, each key set twice", n, [
  {
    name: "native Map",
    fn: () => {
      const m = new Map<string, number>();
      for (const k of keys) m.set(k, 1);
      for (const k of keys) m.set(k, 2);
      return m;
    },
    baseline: true,
  },
  {
    name: "OrderedMap builder -> freeze",
    fn: () => {
      const b = OrderedMap.builder<string, number>();
      for (const k of keys) b.set(k, 1);
      for (const k of keys) b.set(k, 2);
      return b.freeze();
    },
  },
  {
    name: "Immutable.js OrderedMap withMutations",
    fn: () =>
      ImmutableOrderedMap<string, number>().withMutations((m) => {
        for (const k of keys) m.set(k, 1);
        for (const k of keys) m.set(k, 2);
      }),
  },
]);

await timeGroup("ordered_map", "get x1000", n, [
  {
    name: "Map#get",
    fn: () => {
      let s = 0;
      for (const k of probes) s += native.get(k)!;
      return s;
    },
    baseline: true,
  },
  {
    name: "OrderedMap#get",
    fn: () => {
      let s = 0;
      for (const k of probes) s += ordered.get(k)!;
      return s;
    },
  },
]);

await timeGroup("ordered_map", "iterate every entry", n, [
  {
    name: "Map for..of",
    fn: () => {
      let s = 0;
      for (const [, v] of native) s += v;
      return s;
    },
    baseline: true,
  },
  {
    name: "OrderedMap for..of",
    fn: () => {
      let s = 0;
      for (const [, v] of ordered) s += v;
      return s;
    },
  },
]);
