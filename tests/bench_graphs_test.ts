import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { resolveTools } from "../mod.ts";
import { floorDeclared, floorResolve, immutableResolve } from "../bench/_baselines.ts";
import {
  FAMILIES,
  generate,
  includeDepth,
  naiveWrites,
  randomDag,
  type Workload,
} from "../bench/_graphs.ts";
import { logLogSlope, renderResults, type ResultsFile } from "../bench/_report.ts";
import { referenceResolve, referenceWriteLog } from "../lib/testing.ts";
import { fc, runs } from "./_fc.ts";

/** Every resolver of the bench gives the reference's keys; ours and Immutable.js its entries too. */
function assertResolversAgree(w: Workload): void {
  const lookup = (name: string) => w.catalog.get(name);
  const reference = referenceResolve(w.root, lookup);
  const ours = resolveTools(w.root, w.catalog);
  assert.deepEqual([...ours.values()], reference);
  assert.deepEqual([...immutableResolve(w.root, w.catalog).values()], reference);
  // The floors keep no order and no last-writer rule: the same key set.
  const keys = new Set(reference.map((e) => e.name));
  assert.deepEqual(new Set(floorResolve(w.root, w.catalog).keys()), keys);
  assert.deepEqual(new Set(floorDeclared(w.reachable).keys()), keys);
  // The bench's cost model of the naive reference is its write count.
  assert.equal(naiveWrites(w), referenceWriteLog(w.root, lookup).length);
}

describe("bench graph generators", () => {
  for (const family of FAMILIES) {
    it(`${family}: every resolver of the bench agrees with the naive reference`, () => {
      assertResolversAgree(generate(family, family === "ladder" ? 120 : 400));
    });

    it(`${family}: seeded (the same call gives the same catalog) and near its size`, () => {
      const a = generate(family, 2000), b = generate(family, 2000);
      assert.deepEqual([...a.catalog.values()], [...b.catalog.values()]);
      assert.ok(a.declared > 2000 * 0.4 && a.declared < 2000 * 1.6, `${a.declared}`);
    });
  }

  it("random DAG: the resolvers agree at any edge density and share of repeated names", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 400 }),
        fc.integer({ min: 0, max: 6 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        (size, density, repeated, seed) => {
          const w = randomDag(size, { density, repeated, seed });
          fc.pre(naiveWrites(w) < 200_000);
          assertResolversAgree(w);
        },
      ),
      runs(40),
    );
  });

  it("measures the naive recursion's depth and writes without running it", () => {
    const chain = generate("chain", 1000);
    assert.equal(includeDepth(chain), 100);
    assert.equal(naiveWrites(chain), 1000);
    // The ladder doubles its paths per rung.
    const ladder = generate("ladder", 200);
    assert.equal(includeDepth(ladder), 11);
    assert.equal(naiveWrites(generate("ladder", 220)), 2 * naiveWrites(ladder) + 20);
  });
});

describe("bench report", () => {
  it("fits the log–log slope of a power law exactly", () => {
    fc.assert(
      fc.property(fc.double({ min: 0.2, max: 3, noNaN: true }), (k) => {
        const points = [1e3, 1e4, 1e5, 1e6].map((x) => [x, 5 * x ** k] as const);
        assert.ok(Math.abs(logLogSlope(points)! - k) < 1e-9);
      }),
      runs(50),
    );
    assert.equal(logLogSlope([[10, 1]]), null);
  });

  it("reports each target with the worst runtime's value, met or not", () => {
    const row = (family: string, size: number, name: string, median: number) => ({
      bench: "resolve",
      workload: family,
      size,
      case: name,
      median,
      p75: median,
      p99: median,
      samples: 5,
      baseline: "floor (a)",
      ratio: null,
    });
    const file = (runtime: "node" | "bun", slow: number): ResultsFile => ({
      runtime,
      version: "v0",
      date: "2026-01-01T00:00:00Z",
      machine: "test",
      quick: false,
      rows: [1e3, 1e4, 1e5, 1e6].flatMap((n) => [
        row("random-dag", n, "floor (a)", n),
        row("random-dag", n, "floor (b)", n / 2),
        row("random-dag", n, "resolveTools", slow * n),
      ]),
    });
    const md = renderResults([file("node", 1.5), file("bun", 2.5)], { quick: false, plots: "p" });
    assert.match(md, /\| node \| 10\^6 \| 1\.5 ms \| 1\.0 ms \| 500\.0 µs \| 1\.50× \| 3\.00× \|/);
    assert.match(
      md,
      /resolveTools ÷ floor \(a\).*\| 1\.50 \(random-dag @ 10\^5\) \| 2\.50 .* \| \*\*no\*\* \|/,
    );
    assert.match(
      md,
      /resolveTools log–log slope.*\| 1\.00 \(random-dag\) \| 1\.00 \(random-dag\) \| yes \|/,
    );
    assert.match(md, /^Written by `npm run bench` \(bench\/run\.ts\)\. Machine/m);
    // A partial run says so: its time is not the whole table's.
    const partial = renderResults([file("node", 1.5)], {
      quick: false,
      plots: "p",
      elapsedSeconds: 90,
      only: ["search"],
    });
    assert.match(
      partial,
      /^Last updated by `npm run bench -- search` \(bench\/run\.ts\) in 1\.5 min; the other benches' rows are kept/m,
    );
  });
});
