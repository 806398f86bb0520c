import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { fc, runs } from "../../_fc.ts";
import {
  type ActivationEvent,
  activationEvent,
  type ActivationTrigger,
  createBundle,
  eventTimeMs,
  fitSkillCatalog,
  formatActivationEvent,
  handleSkillTool,
  MAX_EVENT_FIELD,
  parseActivationEvent,
  type SkillActivation,
  usageRank,
  UsageTally,
} from "../../../mod.ts";

const DAY = 86_400_000;
/** The fake clock of these tests: 2026-12-01T00:00:00Z. */
const NOW = Date.UTC(2026, 11, 1);

const used = (
  name: string,
  timeMs: number,
  trigger: ActivationTrigger = "model",
  origin = "local",
): ActivationEvent => activationEvent({ name, origin, trigger }, timeMs);

const nameArb = fc.oneof(
  fc.constantFrom(
    "pdf",
    "csv",
    "__proto__",
    "constructor",
    "docs:pdf",
    'a"b\\c',
    "技能",
    "x\u2028y",
  ),
  fc.string({ minLength: 1, maxLength: 30 }),
);
const triggerArb = fc.constantFrom<ActivationTrigger>("model", "user");
/** Times within 120 days before the fake clock, and a few after it (a skewed clock). */
const timeArb = fc.integer({ min: NOW - 120 * DAY, max: NOW + 2 * DAY });
const eventArb = fc.record({ name: nameArb, trigger: triggerArb, time: timeArb }).map((e) =>
  used(e.name, e.time, e.trigger)
);

describe("activation events", () => {
  it("an event survives its line: parse(format(e)) is e, with OTel's fields", () => {
    fc.assert(
      fc.property(
        nameArb,
        nameArb,
        triggerArb,
        fc.integer({ min: 0, max: 18_446_744_073_709 }),
        (name, origin, trigger, time) => {
          const event = activationEvent({ name, origin, trigger }, time);
          const line = formatActivationEvent(event);
          assert.ok(line.endsWith("\n") && !line.slice(0, -1).includes("\n"));
          assert.deepEqual(parseActivationEvent(line), event);
          assert.equal(eventTimeMs(event), time);
          assert.equal(event.time_unix_nano, `${BigInt(time) * 1_000_000n}`);
          assert.deepEqual(Object.keys(JSON.parse(line)), [
            "time_unix_nano",
            "event_name",
            "attributes",
          ]);
        },
      ),
      runs(200),
    );
  });

  it("the line is the documented shape", () => {
    const line = formatActivationEvent(used("pdf", NOW, "user", "docs"));
    assert.equal(
      line,
      '{"time_unix_nano":"1796083200000000000","event_name":"skillset.skill.activation",' +
        '"attributes":{"gen_ai.skill.name":"pdf","skillset.skill.origin":"docs","skillset.skill.trigger":"user"}}\n',
    );
  });

  it("anything but an activation event parses to undefined, never throws", () => {
    const good = JSON.parse(formatActivationEvent(used("pdf", NOW)));
    const variants: unknown[] = [
      null,
      [],
      "x",
      42,
      { ...good, event_name: "gen_ai.client.inference.operation.details" },
      { ...good, time_unix_nano: "-1" },
      { ...good, time_unix_nano: "1.5" },
      { ...good, time_unix_nano: "01" },
      { ...good, time_unix_nano: "1".repeat(21) },
      { ...good, time_unix_nano: "18446744073709551616" }, // 2^64
      { ...good, time_unix_nano: 1.5 },
      { ...good, time_unix_nano: 2 ** 60 },
      { ...good, attributes: null },
      { ...good, attributes: { ...good.attributes, "gen_ai.skill.name": "" } },
      { ...good, attributes: { ...good.attributes, "gen_ai.skill.name": 7 } },
      { ...good, attributes: { ...good.attributes, "gen_ai.skill.name": "x".repeat(1025) } },
      { ...good, attributes: { ...good.attributes, "skillset.skill.origin": undefined } },
      { ...good, attributes: { ...good.attributes, "skillset.skill.trigger": "agent" } },
    ];
    for (const v of variants) assert.equal(parseActivationEvent(JSON.stringify(v)), undefined);
    assert.equal(parseActivationEvent(undefined as unknown as string), undefined);
    // A name inherited from the prototype is not an attribute.
    assert.equal(
      parseActivationEvent(
        '{"time_unix_nano":"1","event_name":"skillset.skill.activation","attributes":{"__proto__":{"gen_ai.skill.name":"x","skillset.skill.origin":"local","skillset.skill.trigger":"user"}}}',
      ),
      undefined,
    );
    // A number time (OTLP/JSON allows one) is read as its decimal string.
    assert.equal(
      parseActivationEvent(JSON.stringify({ ...good, time_unix_nano: 5 }))?.time_unix_nano,
      "5",
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (line) => {
        parseActivationEvent(line);
      }),
      runs(300),
    );
  });

  it("parses as a simple reference does (JSON.parse and the field checks)", () => {
    const pieceArb = fc.oneof(
      nameArb,
      fc.constantFrom(
        "\\u0041",
        "\\q",
        "\\u12",
        "\\",
        '\\"',
        "\u0001",
        "\n",
        "\t",
        "\\n",
        "é",
        "\ud83d",
      ),
    );
    const fieldArb = fc.array(pieceArb, { minLength: 0, maxLength: 4 }).map((p) => p.join(""));
    const lineArb = fc.record({
      time: fc.oneof(
        fc.constantFrom("0", "01", "18446744073709551615", "18446744073709551616", "1e3"),
        fc.nat().map(String),
      ),
      name: fieldArb,
      origin: fieldArb,
      trigger: fc.constantFrom("model", "user", "agent"),
      tail: fc.constantFrom("", "\n", "\r\n", " ", ',"x":1'),
    }).map((l) =>
      `{"time_unix_nano":"${l.time}","event_name":"skillset.skill.activation","attributes":{"gen_ai.skill.name":"${l.name}","skillset.skill.origin":"${l.origin}","skillset.skill.trigger":"${l.trigger}"}}${l.tail}`
    );
    fc.assert(
      fc.property(lineArb, (line) => {
        assert.deepEqual(parseActivationEvent(line), referenceParse(line));
      }),
      runs(500),
    );
  });

  it("a line glued after a torn one gives the whole event", () => {
    const whole = formatActivationEvent(used("csv", NOW - DAY));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: whole.length - 2 }), (cut) => {
        const torn = formatActivationEvent(used("pdf", NOW)).slice(0, cut);
        assert.equal(
          parseActivationEvent(torn + whole)?.attributes["gen_ai.skill.name"],
          "csv",
        );
      }),
      runs(100),
    );
  });

  it("activationEvent refuses what a log could not hold", () => {
    const long = "x".repeat(MAX_EVENT_FIELD + 1);
    for (
      const bad of [
        { name: "", origin: "local", trigger: "model" },
        {
          name: long,
          origin: "local",
          trigger: "model",
        },
        { name: "a", origin: "local", trigger: "agent" },
        null,
      ]
    ) {
      assert.throws(
        () => activationEvent(bad as unknown as SkillActivation, 0),
        TypeError,
      );
    }
    for (const t of [-1, NaN, Infinity, 18_446_744_073_710]) {
      assert.throws(() => activationEvent({ name: "a", origin: "local", trigger: "user" }, t), {
        name: "RangeError",
        message: `The time must be a number of milliseconds from 0 to 18446744073709, got ${t}`,
      });
    }
  });
});

describe("recent-weighted counts", () => {
  it("decay law: an activation weighs 2^(−age / half-life); one from the future weighs 1", () => {
    const tally = new UsageTally({ now: NOW, halfLifeMs: 7 * DAY });
    tally.add(used("now", NOW));
    tally.add(used("week", NOW - 7 * DAY));
    tally.add(used("fortnight", NOW - 14 * DAY));
    tally.add(used("future", NOW + DAY));
    assert.deepEqual([...tally.rank()], [["now", 1], ["week", 0.5], ["fortnight", 0.25], [
      "future",
      1,
    ]]);
    const flat = new UsageTally({ now: NOW, halfLifeMs: Infinity });
    for (const t of [0, NOW - 365 * DAY, NOW]) flat.add(used("a", t));
    assert.deepEqual([...flat.rank()], [["a", 3]]);
    // The default half-life is 14 days.
    assert.deepEqual([...usageRank([used("a", NOW - 14 * DAY)], { now: NOW })], [["a", 0.5]]);
  });

  it("counts add: the tally of two logs is the sum of their tallies", () => {
    fc.assert(
      fc.property(
        fc.array(eventArb, { maxLength: 40 }),
        fc.array(eventArb, { maxLength: 40 }),
        (a, b) => {
          const whole = tallyOf([...a, ...b]);
          const left = tallyOf(a);
          const right = tallyOf(b);
          const names = new Set([...left.keys(), ...right.keys()]);
          assert.deepEqual(new Set(whole.keys()), names);
          for (const name of names) {
            const l = left.get(name), r = right.get(name), w = whole.get(name)!;
            assert.equal(w.count, (l?.count ?? 0) + (r?.count ?? 0));
            assert.equal(w.by_model, (l?.by_model ?? 0) + (r?.by_model ?? 0));
            assert.equal(
              w.last_used_ms,
              Math.max(l?.last_used_ms ?? -Infinity, r?.last_used_ms ?? -Infinity),
            );
            const sum = (l?.score ?? 0) + (r?.score ?? 0);
            assert.ok(Math.abs(w.score - sum) <= 1e-9 * Math.max(1, sum), `${w.score} ≠ ${sum}`);
          }
        },
      ),
      runs(200),
    );
  });

  it("more recent activations never rank lower than the same ones older", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e", "f"), { minLength: 2 }),
        fc.array(fc.record({ skill: fc.nat(5), time: timeArb }), { maxLength: 30 }),
        fc.nat(5),
        fc.array(fc.integer({ min: 0, max: 60 * DAY }), { minLength: 30, maxLength: 30 }),
        (names, raw, pick, shifts) => {
          const target = names[pick % names.length]!;
          const events = raw.map((e) => used(names[e.skill % names.length]!, e.time));
          // The same activations of one skill, each moved later (more recent) by its shift.
          const newer = events.map((e, i) =>
            e.attributes["gen_ai.skill.name"] === target
              ? used(target, eventTimeMs(e) + shifts[i]!)
              : e
          );
          const before = placeOf(target, names, usageRank(events, { now: NOW }));
          const after = placeOf(target, names, usageRank(newer, { now: NOW }));
          assert.ok(after <= before, `${target} went from place ${before} to ${after}`);
        },
      ),
      runs(300),
    );
  });

  it("the budget leaves out the lowest-ranked first, ties in the given order (against a sort)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 12 }),
        // Few distinct times, so many skills tie (the same events, or none at all).
        fc.array(
          fc.record({ skill: fc.nat(11), day: fc.constantFrom(0, 3, 14) }),
          { maxLength: 20 },
        ),
        fc.integer({ min: 0, max: 11 }),
        (count, raw, keep) => {
          const skills = Array.from({ length: count }, (_, i) => ({
            name: `s${i}`,
            description: "Does one thing well",
          }));
          const rank = usageRank(
            raw.map((e) => used(`s${e.skill % count}`, NOW - e.day * DAY)),
            { now: NOW },
          );
          // A budget that fits the block with `keep` skills at most.
          const all = fitSkillCatalog(skills).block.length;
          const budget = Math.max(300, Math.floor((all * Math.min(keep, count)) / count));
          const fit = fitSkillCatalog(skills, { budget, rank, descriptionFloor: 200 });
          // The reference: by score, highest first, ties by position.
          const score = (n: string) => rank.get(n) ?? 0;
          const order = skills.map((s, i) => ({ s, i }))
            .sort((x, y) => score(y.s.name) - score(x.s.name) || x.i - y.i)
            .map((x) => x.s.name);
          const dropped = order.slice(order.length - fit.left_out.length);
          assert.deepEqual([...fit.left_out].sort(), [...dropped].sort());
          // And what is listed keeps the given order.
          const listed = fit.listed.map((s) => s.name);
          assert.deepEqual(listed, skills.map((s) => s.name).filter((n) => listed.includes(n)));
        },
      ),
      runs(200),
    );
  });

  it("since leaves out older activations; past maxSkills, new skills are dropped and counted", () => {
    const tally = new UsageTally({ now: NOW, since: NOW - DAY, maxSkills: 2 });
    assert.equal(tally.add(used("old", NOW - 2 * DAY)), false);
    assert.equal(tally.add(used("a", NOW)), true);
    assert.equal(tally.add(used("__proto__", NOW, "user")), true);
    assert.equal(tally.add(used("c", NOW)), false);
    assert.equal(tally.add(used("a", NOW - DAY)), true);
    assert.deepEqual([tally.events, tally.dropped], [3, 1]);
    assert.deepEqual(tally.usage().map((u) => [u.name, u.count, u.by_model, u.by_user]), [
      ["a", 2, 2, 0],
      ["__proto__", 1, 0, 1],
    ]);
  });

  it("usage lists the highest score first, ties in the order first seen", () => {
    const tally = new UsageTally({ now: NOW });
    for (const name of ["b", "a", "c", "a"]) tally.add(used(name, NOW - DAY));
    assert.deepEqual(tally.usage().map((u) => u.name), ["a", "b", "c"]);
    assert.equal(tally.usage()[0]!.last_used_ms, NOW - DAY);
  });

  it("adding what is not an event is a TypeError", () => {
    const tally = new UsageTally({ now: NOW });
    for (
      const bad of [null, {}, { time_unix_nano: "x", attributes: {} }, { time_unix_nano: "1" }]
    ) {
      assert.throws(() => tally.add(bad as never), {
        name: "TypeError",
        message:
          "add(event) takes an activation event (from activationEvent or parseActivationEvent)",
      });
    }
    assert.equal(tally.events, 0);
  });

  it("bad options are RangeErrors", () => {
    const bad: [object, string][] = [
      [{ now: NaN }, "now must be a finite number of milliseconds, got NaN"],
      [{ now: NOW, halfLifeMs: 0 }, "halfLifeMs must be more than 0, got 0"],
      [{ now: NOW, since: Infinity }, "since must be a number of milliseconds, got Infinity"],
      [{ now: NOW, maxSkills: 0 }, "maxSkills must be a whole number ≥ 1, got 0"],
    ];
    for (const [options, message] of bad) {
      assert.throws(() => new UsageTally(options as never), { name: "RangeError", message });
    }
  });
});

describe("the skill tool handler reports each activation", () => {
  const pdf = createBundle({
    frontmatter: { name: "pdf", description: "Fill PDF forms" },
    instructions: "Fill the form.",
    files: { "references/forms.md": "# Forms" },
  });
  // As mcpSkillBundles names them: `<origin>:<skill-path>`, with the origin.
  const remote = {
    ...createBundle({ frontmatter: { name: "csv", description: "CSV" }, instructions: "" }),
    name: "docs:csv",
    origin: "docs",
  };

  it("one event per activation, with the trigger model by default and user when the user named it", () => {
    const seen: SkillActivation[] = [];
    const context = { skills: [pdf, remote], on_activate: (a: SkillActivation) => seen.push(a) };
    assert.equal(handleSkillTool({ skill: "pdf" }, context).is_error, false);
    assert.equal(
      handleSkillTool({ skill: "docs:csv" }, context, { user: true }).is_error,
      false,
    );
    assert.equal(handleSkillTool({ skill: "pdf", offset: 1 }, context).is_error, false);
    assert.deepEqual(seen, [
      { name: "pdf", origin: "local", trigger: "model" },
      { name: "docs:csv", origin: "docs", trigger: "user" },
      { name: "pdf", origin: "local", trigger: "model" },
    ]);
  });

  it("no event for a read, an unknown skill or a bad request", () => {
    const seen: SkillActivation[] = [];
    const context = { skills: [pdf], on_activate: (a: SkillActivation) => seen.push(a) };
    handleSkillTool({ skill: "pdf", resource: "references/forms.md" }, context);
    handleSkillTool({ skill: "nope" }, context);
    handleSkillTool({ skill: 7 }, context);
    handleSkillTool({ skill: "pdf", offset: "1+0" }, context);
    assert.deepEqual(seen, []);
  });

  it("a hook that throws does not fail the activation", () => {
    const result = handleSkillTool({ skill: "pdf" }, {
      skills: [pdf],
      on_activate: () => {
        throw new Error("disk full");
      },
    });
    assert.equal(result.is_error, false);
    assert.ok(result.content.includes("Fill the form."));
  });
});

function tallyOf(events: readonly ActivationEvent[]) {
  const tally = new UsageTally({ now: NOW });
  for (const e of events) tally.add(e);
  return new Map(tally.usage().map((u) => [u.name, u]));
}

/** The place of `name` among `names` by rank, highest first, ties by position. */
function placeOf(
  name: string,
  names: readonly string[],
  rank: ReadonlyMap<string, number> | ((n: string) => number | undefined),
): number {
  const score = (n: string) => (typeof rank === "function" ? rank(n) : rank.get(n)) ?? 0;
  const order = names.map((n, i) => ({ n, i }))
    .sort((x, y) => score(y.n) - score(x.n) || x.i - y.i)
    .map((x) => x.n);
  return order.indexOf(name);
}

/** The reference parser: JSON.parse, then the field checks, nothing else. */
function referenceParse(line: string): ActivationEvent | undefined {
  let data;
  try {
    data = JSON.parse(line);
  } catch {
    return undefined;
  }
  const a = data?.attributes;
  const ok = (v: unknown) => typeof v === "string" && v.length > 0 && v.length <= MAX_EVENT_FIELD;
  if (
    data?.event_name !== "skillset.skill.activation" || typeof data.time_unix_nano !== "string" ||
    !/^(?:0|[1-9]\d{0,19})$/.test(data.time_unix_nano) ||
    BigInt(data.time_unix_nano) >= 2n ** 64n || typeof a !== "object" || a === null ||
    !ok(a["gen_ai.skill.name"]) || !ok(a["skillset.skill.origin"]) ||
    !["model", "user"].includes(a["skillset.skill.trigger"])
  ) return undefined;
  return {
    time_unix_nano: data.time_unix_nano,
    event_name: "skillset.skill.activation",
    attributes: {
      "gen_ai.skill.name": a["gen_ai.skill.name"],
      "skillset.skill.origin": a["skillset.skill.origin"],
      "skillset.skill.trigger": a["skillset.skill.trigger"],
    },
  };
}
