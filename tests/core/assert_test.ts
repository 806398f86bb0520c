import { describe, it } from "node:test";
import nodeAssert from "node:assert/strict";
import { fc, runs } from "../_fc.ts";
import { assert, AssertionError } from "../../lib/core/_assert.ts";

/** The doc examples' assertions agree with node:assert/strict on plain data. */
describe("lib/core/_assert.ts", () => {
  const data = fc.jsonValue({ maxDepth: 3 });

  it("deepEqual agrees with node:assert/strict deepEqual on JSON data", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.tuple(data, data), data.map((d) => [d, structuredClone(d)] as const)),
        ([a, b]) => {
          const ours = (() => {
            try {
              assert.deepEqual(a, b);
              return true;
            } catch (e) {
              nodeAssert.ok(e instanceof AssertionError);
              return false;
            }
          })();
          const theirs = (() => {
            try {
              nodeAssert.deepEqual(a, b);
              return true;
            } catch {
              return false;
            }
          })();
          nodeAssert.equal(ours, theirs, JSON.stringify([a, b]));
        },
      ),
      runs(300),
    );
  });

  it("equal, ok and throws pass and fail as node:assert does", () => {
    assert.equal(1, 1);
    nodeAssert.throws(() => assert.equal(1, 2), {
      name: "AssertionError",
      message: "Expected 2, got 1",
    });
    assert.ok("x");
    nodeAssert.throws(() => assert.ok(0), { message: "Expected a truthy value, got 0" });
    nodeAssert.throws(() => assert.deepEqual([1], { 0: 1 }), AssertionError);
    assert.throws(() => {
      throw new RangeError("no");
    }, { name: "RangeError", message: "no" });
    nodeAssert.throws(() => assert.throws(() => 1, {}), {
      message: "Expected a throw, but nothing was thrown",
    });
    nodeAssert.throws(() =>
      assert.throws(() => {
        throw new TypeError("x");
      }, { name: "RangeError" }), { message: "Expected RangeError, got TypeError: x" });
    nodeAssert.throws(() =>
      assert.throws(() => {
        throw new TypeError("x");
      }, { message: "y" }), { message: 'Expected message "y", got "x"' });
  });
});
