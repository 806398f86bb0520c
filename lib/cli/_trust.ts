/**
 * The trust commands of the `skillset` CLI: `lock`, `verify [--frozen]`,
 * `approve <name>...|--all` and `list --approvals FILE`. Asynchronous
 * (hashing uses WebCrypto), so `mainAsync` runs them.
 *
 * @module
 */
import { dirname, resolve } from "node:path";
import { escapeControls as esc } from "../core/_text.ts";
import { type ArgSpec, parseArgs, UsageError } from "./_args.ts";
import { type LockDifference, LOCKFILE_NAME } from "../core/trust/lockfile.ts";
import {
  approveSkills,
  describeDifference as describeChanged,
  lockSkills,
  trustStandings,
  verifySkills,
} from "../fs/trust.ts";
import {
  APPROVALS_NAME,
  JsonFileApprovalStore,
  readLockfile,
  writeLockfile,
} from "../fs/trust_files.ts";
import { discoveryFlags, listDiscovery, rootOf } from "./_discovery.ts";
import { rootsHoldSkills } from "./_roots.ts";
import type { CliIO } from "./_io.ts";
import { listCommand } from "./_list.ts";

/**
 * Run one trust command.
 *
 * @param argv The arguments after the program name (the command first).
 * @param io Where to write.
 * @param spec The command's flags.
 * @returns The exit code: 0 ok, 1 a difference, a skill that cannot be hashed or a bad file.
 * @throws {UsageError} For bad usage (exit 2).
 * @throws {TrustFileError} For a missing or malformed lockfile or approval file (exit 1).
 */
export async function runTrustCli(
  argv: readonly string[],
  io: CliIO,
  spec: ArgSpec,
): Promise<number> {
  const [command = "", ...rest] = argv;
  const args = parseArgs(command, spec, rest);
  let rootFlags = args.repeated.get("--root") ?? [];
  const load = discoveryFlags(args);
  const allowEmpty = args.switches.has("--allow-empty");
  // The same roots and discovery as `list`.
  const discover = (folders: readonly string[] = []) => listDiscovery(folders, rootFlags, load);
  const out = (value: unknown): void => io.stdout(`${JSON.stringify(value, null, 2)}\n`);
  switch (command) {
    case "lock": {
      const file = resolve(args.flags.get("--lockfile") ?? LOCKFILE_NAME);
      const { roots, discovery } = discover();
      if (!rootsHoldSkills(roots, discovery, rootFlags.length > 0, allowEmpty, io)) return 1;
      const { lock, errors } = await lockSkills(discovery, {
        base: dirname(file),
        ...rootFlags.length > 0 ? { roots } : {},
      });
      for (const e of errors) io.stderr(`skillset: error: ${esc(e.name)}: ${esc(e.message)}\n`);
      if (errors.length > 0) return 1;
      for (const s of lock.skills) {
        for (const e of s.entries ?? []) {
          io.stderr(
            `skillset: note: ${esc(s.name)}: "${
              esc(e.path)
            }" (${e.kind}) is locked but no reader serves it\n`,
          );
        }
      }
      writeLockfile(file, lock);
      if (args.json) {
        out({
          lockfile: file,
          skills: lock.skills.map((s) => ({
            name: s.name,
            scope: s.scope,
            source: s.source,
            digest: s.digest,
          })),
        });
      } else {io.stdout(
          `Locked ${lock.skills.length} skill${lock.skills.length === 1 ? "" : "s"} in ${
            esc(file)
          }\n`,
        );}
      return 0;
    }
    case "verify": {
      const file = resolve(args.flags.get("--lockfile") ?? LOCKFILE_NAME);
      const lock = readLockfile(file);
      const frozen = args.switches.has("--frozen");
      // The lockfile's own roots, unless others are given (and then they must be the same).
      const locked = (lock.roots ?? []).map((r) => `${r.scope}=${resolve(dirname(file), r.path)}`);
      if (rootFlags.length === 0) rootFlags = locked;
      else if (lock.roots !== undefined) {
        const given = rootFlags.map((f) => {
          const r = rootOf(f);
          return `${r.scope}=${resolve(r.path)}`;
        });
        if (given.join("\n") !== locked.join("\n")) {
          io.stderr(
            `skillset: error: the roots differ from the lockfile's: given ${
              esc(given.join(", "))
            }; locked ${esc(locked.join(", ") || "(none)")}\n`,
          );
          return 1;
        }
      }
      const { roots, discovery } = discover();
      if (!rootsHoldSkills(roots, discovery, rootFlags.length > 0, allowEmpty, io)) return 1;
      const result = await verifySkills(discovery, lock, {
        base: dirname(file),
        frozen,
      });
      if (args.json) {
        out({ ok: result.ok, differences: result.differences, errors: result.errors });
      } else {
        for (const d of result.differences) io.stdout(`${describeDifference(d, frozen)}\n`);
        for (const e of result.errors) {
          io.stdout(`error   ${esc(e.key)} (${esc(e.name)}): ${esc(e.message)}\n`);
        }
        io.stdout(
          result.ok
            ? `OK: ${lock.skills.length} locked skill${
              lock.skills.length === 1 ? "" : "s"
            } verified\n`
            : "FAILED: the skills differ from the lockfile\n",
        );
        const removed = result.differences.filter((d) => d.kind === "removed").length;
        if (lock.roots === undefined && lock.skills.length > 0 && removed === lock.skills.length) {
          io.stdout(
            "hint: no locked skill was found; the lockfile records no roots: pass the --root flags it was made with\n",
          );
        }
      }
      return result.ok ? 0 : 1;
    }
    case "approve": {
      const all = args.switches.has("--all");
      if (all === (args.positional.length > 0)) {
        throw new UsageError(`approve: name the skills, or give --all\nusage: ${spec.usage}`);
      }
      const store = new JsonFileApprovalStore(args.flags.get("--approvals") ?? APPROVALS_NAME);
      const records = await approveSkills(
        discover().discovery,
        store,
        all ? "all" : args.positional,
      );
      if (args.json) {
        out({
          approvals: store.path,
          approved: records.map((r) => ({ name: r.name, digest: r.digest })),
        });
      } else {
        for (const r of records) io.stdout(`approved ${esc(r.name)} ${r.digest}\n`);
        io.stdout(
          `${records.length} skill${records.length === 1 ? "" : "s"} approved in ${
            esc(store.path)
          }\n`,
        );
      }
      return 0;
    }
    default: {
      // list --approvals FILE
      const store = new JsonFileApprovalStore(args.flags.get("--approvals")!);
      const { roots, discovery } = discover(args.positional);
      const standings = await trustStandings(discovery, { approvals: store });
      const approvals = new Map(standings.map((s) => [s.skill.path, {
        approval: s.approval?.status ?? "unreadable",
        changes: s.approval?.changes ?? [],
      }]));
      return listCommand(args.positional, rootFlags, load, args.json, io, {
        roots,
        discovery,
        approvals,
      });
    }
  }
}

function describeDifference(d: LockDifference, frozen: boolean): string {
  const who = `${esc(d.key)} (${esc(d.name)})`;
  switch (d.kind) {
    case "added":
      return `${frozen ? "added  " : "unlocked"} ${who}: not in the lockfile`;
    case "removed":
      return `removed ${who}: locked but not found`;
    default:
      return `changed ${who}: ${esc(describeChanged(d))}${
        d.inconsistent ? " (the lock entry's digest does not match its own files)" : ""
      }`;
  }
}
