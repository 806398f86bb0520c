import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import { OrderedMap, OrderedMapBuilder } from "../../../mod.ts";

const key = fc.oneof(
  fc.constantFrom("__proto__", "constructor", "hasOwnProperty", "toString", "a", "b", ""),
  fc.string({ maxLength: 2 }),
);
const entries = fc.array(fc.tuple(key, fc.integer()), { maxLength: 40 });

/** The plain reference: a Map for values and an array for first-insertion order. */
function reference(pairs: Iterable<readonly [string, number]>): [string, number][] {
  const values = new Map<string, number>();
  const order: string[] = [];
  for (const [k, v] of pairs) {
    if (!values.has(k)) order.push(k);
    values.set(k, v);
  }
  return order.map((k) => [k, values.get(k)!]);
}

function contents<K, V>(m: OrderedMap<K, V>): [K, V][] {
  return [...m].map(([k, v]) => [k, v]);
}

// ---- model-based test ------------------------------------------------------

interface Model {
  builder: [string, number][];
  current: [string, number][];
}
interface Real {
  builder: OrderedMapBuilder<string, number>;
  current: OrderedMap<string, number>;
  snapshots: { map: OrderedMap<string, number>; expected: [string, number][] }[];
}
type Cmd = fc.Command<Model, Real>;

function setIn(list: [string, number][], k: string, v: number): [string, number][] {
  return reference([...list, [k, v]]);
}

function checkSame(real: OrderedMap<string, number>, expected: [string, number][]): void {
  assert.deepEqual(contents(real), expected);
  assert.equal(real.size, expected.length);
  for (const [k, v] of expected) {
    assert.equal(real.has(k), true);
    assert.equal(real.get(k), v);
  }
}

class BuilderSet implements Cmd {
  constructor(readonly k: string, readonly v: number) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    r.builder.set(this.k, this.v);
    m.builder = setIn(m.builder, this.k, this.v);
    assert.equal(r.builder.size, m.builder.length);
    assert.equal(r.builder.get(this.k), this.v);
    assert.equal(r.builder.has(this.k), true);
  }
  toString(): string {
    return `builder.set(${JSON.stringify(this.k)}, ${this.v})`;
  }
}

class BuilderFreeze implements Cmd {
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    const frozen = r.builder.freeze();
    checkSame(frozen, m.builder);
    r.snapshots.push({ map: frozen, expected: [...m.builder] });
  }
  toString(): string {
    return "builder.freeze()";
  }
}

class With implements Cmd {
  constructor(readonly k: string, readonly v: number) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    r.snapshots.push({ map: r.current, expected: [...m.current] });
    r.current = r.current.with(this.k, this.v);
    m.current = setIn(m.current, this.k, this.v);
    checkSame(r.current, m.current);
  }
  toString(): string {
    return `with(${JSON.stringify(this.k)}, ${this.v})`;
  }
}

class WithMany implements Cmd {
  constructor(readonly pairs: [string, number][]) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    r.snapshots.push({ map: r.current, expected: [...m.current] });
    r.current = r.current.withMany(this.pairs);
    m.current = reference([...m.current, ...this.pairs]);
    checkSame(r.current, m.current);
  }
  toString(): string {
    return `withMany(${JSON.stringify(this.pairs)})`;
  }
}

class Without implements Cmd {
  constructor(readonly k: string) {}
  check(): boolean {
    return true;
  }
  run(m: Model, r: Real): void {
    r.snapshots.push({ map: r.current, expected: [...m.current] });
    r.current = r.current.without(this.k);
    m.current = m.current.filter(([k]) => k !== this.k);
    checkSame(r.current, m.current);
    assert.equal(r.current.has(this.k), false);
    assert.equal(r.current.get(this.k), undefined);
  }
  toString(): string {
    return `without(${JSON.stringify(this.k)})`;
  }
}

class CheckSnapshots implements Cmd {
  check(): boolean {
    return true;
  }
  run(_m: Model, r: Real): void {
    for (const { map, expected } of r.snapshots) checkSame(map, expected);
  }
  toString(): string {
    return "checkSnapshots()";
  }
}

describe("OrderedMap", () => {
  it("builder and persistent API agree with a Map plus first-insertion order (model-based)", () => {
    const commands = fc.commands([
      fc.tuple(key, fc.integer()).map(([k, v]) => new BuilderSet(k, v) as Cmd),
      fc.constant(new BuilderFreeze() as Cmd),
      fc.tuple(key, fc.integer()).map(([k, v]) => new With(k, v) as Cmd),
      fc.array(fc.tuple(key, fc.integer()), { maxLength: 5 }).map((p) => new WithMany(p) as Cmd),
      key.map((k) => new Without(k) as Cmd),
      fc.constant(new CheckSnapshots() as Cmd),
    ], { maxCommands: 60 });
    fc.assert(
      fc.property(commands, (cmds) => {
        const model: Model = { builder: [], current: [] };
        const real: Real = {
          builder: OrderedMap.builder(),
          current: OrderedMap.empty(),
          snapshots: [],
        };
        fc.modelRun(() => ({ model, real }), cmds);
        for (const { map, expected } of real.snapshots) checkSame(map, expected);
      }),
      runs(200),
    );
  });

  it("from(entries) equals folding with over the entries", () => {
    fc.assert(
      fc.property(entries, (pairs) => {
        const folded = pairs.reduce(
          (m, [k, v]) => m.with(k, v),
          OrderedMap.empty<string, number>(),
        );
        assert.deepEqual(contents(OrderedMap.from(pairs)), contents(folded));
      }),
      runs(200),
    );
  });

  it("keeps each key at its first appearance with its last value", () => {
    fc.assert(
      fc.property(entries, (pairs) => {
        const m = OrderedMap.from(pairs);
        assert.deepEqual(contents(m), reference(pairs));
        assert.deepEqual([...m.keys()], reference(pairs).map(([k]) => k));
        assert.deepEqual([...m.values()], reference(pairs).map(([, v]) => v));
        assert.deepEqual(m.toArray(), reference(pairs));
      }),
      runs(200),
    );
  });

  it("leaves old versions unchanged after any sequence of updates", () => {
    const op = fc.oneof(
      fc.tuple(fc.constant("with" as const), key, fc.integer()),
      fc.tuple(fc.constant("without" as const), key, fc.constant(0)),
    );
    fc.assert(
      fc.property(entries, fc.array(op, { maxLength: 20 }), (pairs, ops) => {
        const versions = [OrderedMap.from(pairs)];
        const expected = [contents(versions[0]!)];
        for (const [kind, k, v] of ops) {
          const last = versions[versions.length - 1]!;
          const next = kind === "with" ? last.with(k, v) : last.without(k);
          versions.push(next);
          expected.push(contents(next));
        }
        versions.forEach((m, i) => assert.deepEqual(contents(m), expected[i]));
      }),
      runs(200),
    );
  });

  it("without then with moves a key to the end", () => {
    fc.assert(
      fc.property(entries.filter((p) => p.length > 0), fc.nat(), fc.integer(), (pairs, i, v) => {
        const m = OrderedMap.from(pairs);
        const k = [...m.keys()][i % m.size]!;
        const moved = m.without(k).with(k, v);
        assert.deepEqual([...moved.keys()], [...[...m.keys()].filter((x) => x !== k), k]);
        assert.equal(moved.get(k), v);
      }),
      runs(200),
    );
  });

  it("returns itself when an update changes nothing", () => {
    const m = OrderedMap.from([["a", 1]]);
    assert.equal(m.with("a", 1), m);
    assert.equal(m.without("zzz"), m);
    assert.notEqual(m.with("a", 2), m);
  });

  it("treats __proto__, constructor and hasOwnProperty as ordinary keys", () => {
    const m = OrderedMap.from<string, number>([
      ["__proto__", 1],
      ["constructor", 2],
      ["hasOwnProperty", 3],
      ["__proto__", 4],
    ]);
    assert.deepEqual(m.toArray(), [["__proto__", 4], ["constructor", 2], ["hasOwnProperty", 3]]);
    assert.equal(m.get("toString"), undefined);
    assert.equal(m.has("toString"), false);
    assert.equal(JSON.stringify(m), '[["__proto__",4],["constructor",2],["hasOwnProperty",3]]');
    const b = OrderedMap.builder<string, number>().set("__proto__", 1).set("constructor", 2);
    assert.deepEqual(b.freeze().toArray(), [["__proto__", 1], ["constructor", 2]]);
  });

  it("is frozen and reaches no mutator, even through a Map cast", () => {
    const m = OrderedMap.from([["a", 1]]);
    assert.equal(Object.isFrozen(m), true);
    const asMap = m as unknown as Map<string, number>;
    assert.equal(typeof asMap.set, "undefined");
    assert.equal(typeof asMap.delete, "undefined");
    assert.equal(typeof asMap.clear, "undefined");
    assert.throws(() => {
      (m as unknown as { extra: number }).extra = 1;
    }, TypeError);
    assert.equal(Object.isFrozen(m.toArray()), true);
    assert.equal(Object.isFrozen(m.toArray()[0]), true);
    assert.equal(Object.prototype.toString.call(m), "[object OrderedMap]");
  });

  it("a builder never changes a map it has frozen", () => {
    const b = OrderedMap.builder<string, number>().set("a", 1);
    const first = b.freeze();
    b.set("a", 2).set("b", 3);
    assert.deepEqual(first.toArray(), [["a", 1]]);
    assert.deepEqual(b.freeze().toArray(), [["a", 2], ["b", 3]]);
  });

  it("forEach visits entries in order with the map as third argument", () => {
    const m = OrderedMap.from([["x", 1], ["y", 2]]);
    const seen: unknown[] = [];
    m.forEach(function (this: unknown, v, k, map) {
      seen.push([k, v, map === m, this]);
    }, "ctx");
    assert.deepEqual(seen, [["x", 1, true, "ctx"], ["y", 2, true, "ctx"]]);
  });

  it("cannot be constructed directly", () => {
    const Ctor = OrderedMap as unknown as new (m: Map<string, number>, t: symbol) => unknown;
    assert.throws(() => new Ctor(new Map(), Symbol("x")), {
      name: "TypeError",
      message: "OrderedMap cannot be constructed directly: use OrderedMap.from",
    });
    const B = OrderedMapBuilder as unknown as new (f: unknown) => unknown;
    assert.throws(() => new B(() => null), {
      name: "TypeError",
      message: "OrderedMapBuilder cannot be constructed directly: use OrderedMap.builder",
    });
  });
});
