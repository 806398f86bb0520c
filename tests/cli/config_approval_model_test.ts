/**
 * Config approval as a state machine (docs/security.md#config-approval,
 * #config-keys): random sequences of approve, edit a key (each kind),
 * lapse (same keys, other bytes), move or link the project, break and mend
 * the user's state folder, and decide a command, checked against a model
 * of what is honoured. The model keeps its own table of which keys wait for
 * approval, written from the docs, not from `needsApproval`.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fc, runs } from "../_fc.ts";
import { readConfig } from "../../lib/cli/_config.ts";
import { approveConfig, honouredConfig } from "../../lib/cli/_config_trust.ts";

let temp = "";
before(() => {
  temp = mkdtempSync(join(tmpdir(), "skillset-config-model-"));
});
after(() => rmSync(temp, { recursive: true, force: true }));

/** One value of each kind a key can take. */
const VALUES: readonly (readonly [string, unknown])[] = [
  ["lockfile", "a.lock.json"],
  ["lockfile", "b.lock.json"],
  ["approvals", "approvals.json"],
  ["usage_log", "usage.log"],
  ["global_safety", false],
  ["global_safety", true],
  ["budget", 100],
  ["budget", 200],
  ["roots", [{ scope: "project", path: "skills" }]],
];

const COMMANDS = ["list", "to-prompt", "run", "activate", "serve", "lock", "verify"] as const;
const CONSUMERS = new Set(["list", "to-prompt", "search", "read", "activate", "run", "serve"]);

/** The docs' table: whether a key waits for approval under a command. */
function waits(key: string, value: unknown, command: string): boolean {
  switch (key) {
    case "lockfile":
    case "approvals":
      return !CONSUMERS.has(command);
    case "usage_log":
      return command === "activate" || command === "serve";
    case "global_safety":
      return value === false;
    case "roots":
      return command === "lock" || command === "verify";
    default:
      return false;
  }
}

interface Model {
  keys: Map<string, unknown>;
  /** The config's path now (it moves). */
  path: string;
  /** A different byte count each lapse: the file's bytes, not only its keys, are approved. */
  padding: number;
  /** The approved digest per path, as the state folder records it. */
  approved: Map<string, string>;
  /** The state folder cannot be read or written. */
  broken: boolean;
}

interface Real {
  readonly state: string;
  readonly env: { readonly SKILLSET_STATE_DIR: string };
  moves: number;
}

type Cmd = fc.Command<Model, Real>;

function writeConfig(m: Model): void {
  writeFileSync(m.path, JSON.stringify(Object.fromEntries(m.keys)) + " ".repeat(m.padding));
}

class Approve implements Cmd {
  check = () => true;
  run(m: Model, r: Real): void {
    const config = readConfig(m.path);
    if (m.broken) {
      assert.throws(() => approveConfig(m.path, config.digest, r.env));
      return;
    }
    approveConfig(m.path, config.digest, r.env);
    m.approved.set(m.path, config.digest);
  }
  toString = () => "approve";
}

class Edit implements Cmd {
  constructor(readonly key: string, readonly value: unknown) {}
  check = () => true;
  run(m: Model): void {
    m.keys.set(this.key, this.value);
    writeConfig(m);
  }
  toString = () => `edit ${this.key}=${JSON.stringify(this.value)}`;
}

class Lapse implements Cmd {
  check = () => true;
  run(m: Model): void {
    m.padding++;
    writeConfig(m);
  }
  toString = () => "lapse";
}

class Move implements Cmd {
  constructor(readonly link: boolean) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const from = join(m.path, "..");
    const to = `${r.state}-proj-${++r.moves}`;
    if (this.link) symlinkSync(from, to);
    else renameSync(from, to);
    m.path = join(to, "skillset.json");
  }
  toString = () => (this.link ? "link" : "move");
}

class Break implements Cmd {
  check = (m: Readonly<Model>) => !m.broken;
  run(m: Model, r: Real): void {
    mkdirSync(join(r.state, "configs"), { recursive: true });
    renameSync(join(r.state, "configs"), join(r.state, "configs.saved"));
    writeFileSync(join(r.state, "configs"), "not a folder");
    m.broken = true;
  }
  toString = () => "break the state folder";
}

class Mend implements Cmd {
  check = (m: Readonly<Model>) => m.broken;
  run(m: Model, r: Real): void {
    rmSync(join(r.state, "configs"));
    renameSync(join(r.state, "configs.saved"), join(r.state, "configs"));
    m.broken = false;
  }
  toString = () => "mend the state folder";
}

class Decide implements Cmd {
  constructor(readonly command: string) {}
  check = () => true;
  run(m: Model, r: Real): void {
    const config = readConfig(m.path);
    const decision = honouredConfig(config, [this.command], r.env);
    const approved = !m.broken && m.approved.get(m.path) === config.digest;
    assert.equal(decision.approved, approved, "approved");
    const ignored = approved
      ? []
      : [...m.keys].filter(([k, v]) => waits(k, v, this.command)).map(([k]) => k);
    assert.deepEqual([...decision.ignored].sort(), ignored.sort(), "ignored");
    for (const [key] of m.keys) {
      const flag = config.keys.get(key)!.flag;
      assert.equal(decision.config.flags.has(flag), !ignored.includes(key), `flag of ${key}`);
    }
  }
  toString = () => `decide ${this.command}`;
}

describe("config approval against a model", () => {
  it("honours exactly what the model says after any sequence of approvals, edits, lapses, moves, links and state failures", () => {
    let n = 0;
    const commands = fc.commands([
      fc.constant(new Approve() as Cmd),
      fc.constantFrom(...VALUES).map(([k, v]) => new Edit(k, v) as Cmd),
      fc.constant(new Lapse() as Cmd),
      fc.boolean().map((link) => new Move(link) as Cmd),
      fc.constant(new Break() as Cmd),
      fc.constant(new Mend() as Cmd),
      fc.constantFrom(...COMMANDS).map((c) => new Decide(c) as Cmd),
    ], { maxCommands: 30 });
    fc.assert(
      fc.property(commands, (cmds) => {
        const state = `s${++n}`;
        const project = join(temp, `${state}-proj-0`);
        mkdirSync(join(project, "skills"), { recursive: true });
        const model: Model = {
          keys: new Map(),
          path: join(project, "skillset.json"),
          padding: 0,
          approved: new Map(),
          broken: false,
        };
        writeConfig(model);
        const real: Real = {
          state: join(temp, state),
          env: { SKILLSET_STATE_DIR: join(temp, state) },
          moves: 0,
        };
        fc.modelRun(() => ({ model, real }), cmds);
      }),
      runs(100),
    );
  });
});
