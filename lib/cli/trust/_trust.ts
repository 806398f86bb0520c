/**
 * The trust commands of the `skillset` CLI: `lock`, `verify [--frozen]
 * [--signers FILE]` and `sign` (their signature half in `_sign.ts`),
 * `approve <name>...|--all`, and `activate`, `read`, `to-prompt`, `list`
 * and `search` with `--lockfile FILE` and `--approvals FILE` (only trusted
 * skills are used; each refused one is named on stderr with why). Asynchronous
 * (hashing uses WebCrypto), so `mainAsync` runs them.
 *
 * Folder `lib/cli/trust/` — the trust commands: lock, verify, approve, sign.
 *
 * @module
 */
import { profileFlags } from "../catalog/_profile.ts";
import { assertModesNameSkills, modesFlag } from "../catalog/_modes.ts";
import { unknownName } from "../_unknown_name.ts";
import { realpathSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { escapeControls as esc } from "../../core/_text.ts";
import { type Args, type ArgSpec, count, parseArgs, toolList, UsageError } from "../_args.ts";
import { approvalChanges, decideApproval } from "../../core/trust/approval.ts";
import { skillManifest } from "../../core/trust/manifest.ts";
import { pinBundle } from "../../core/trust/pin.ts";
import type { Discovery } from "../../fs/discovery/discovery.ts";
import { loadSkillFolder } from "../../fs/load/skill_folder.ts";
import { otherEntries } from "../../fs/trust/_trust_entries.ts";
import { activateCommand, readCommand } from "../catalog/_skill.ts";
import { dependencyDiscovery } from "../catalog/_dependencies.ts";
import {
  isLockBase,
  type LockDifference,
  type Lockfile,
  LOCKFILE_NAME,
} from "../../core/trust/lockfile.ts";
import { TrustFileError } from "../../core/trust/trust_file.ts";
import { repositoryRoot } from "../_config.ts";
import {
  approveSkills,
  describeDifference as describeChanged,
  loadLock,
  lockMismatch,
  lockSkills,
  trustDiscovery,
  trustStandings,
  verifySkills,
} from "../../fs/trust/trust.ts";
import {
  APPROVALS_NAME,
  FILE_ORIGIN,
  JsonFileApprovalStore,
  readLockfile,
  writeLockfile,
} from "../../fs/trust/trust_files.ts";
import { type DiscoveryFlags, discoveryFlags, listDiscovery, rootOf } from "../_discovery.ts";
import { rootsHoldSkills } from "../_roots.ts";
import { keepInstalledFrom } from "../../fs/lifecycle/_lifecycle.ts";
import { targetProblems } from "../../fs/lifecycle/_targets.ts";
import type { CliIO } from "../_io.ts";
import {
  listCommand,
  rankOf,
  searchCommand,
  toPromptCommand,
  toPromptDiscovery,
} from "../catalog/_list.ts";
import { checkSignature, signCommand } from "./_sign.ts";

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
      // The lockfile's folder relative to the repository root: where a signed verify resolves
      // its roots and sources, wherever the lockfile is read (none when it lies outside).
      const recordBase = relative(repositoryRoot(), dirname(file)).split(sep).join("/") || ".";
      const { lock, errors } = await lockSkills(discovery, {
        base: dirname(file),
        ...rootFlags.length > 0 ? { roots } : {},
        ...isLockBase(recordBase) ? { recordBase } : {},
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
      // Skills installed by `skillset add` keep where they came from.
      writeLockfile(file, keepInstalledFrom(lock, file));
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
    case "sign":
      return await signCommand(args, io);
    case "verify": {
      const file = resolve(args.flags.get("--lockfile") ?? LOCKFILE_NAME);
      // With --signers, the signature is checked first and the lockfile read from the checked bytes.
      const signed = await checkSignature(file, args, io);
      const lock = signed?.lock ?? readLockfile(file);
      const frozen = args.switches.has("--frozen");
      const base = lockBase(lock, file, signed !== undefined, io);
      // The lockfile's own roots, unless others are given (and then they must be the same).
      assertRootsInside(lock, file, base);
      const locked = (lock.roots ?? []).map((r) => `${r.scope}=${resolve(base, r.path)}`);
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
      const verified = await verifySkills(discovery, lock, { base, frozen });
      // Each agent target `skillset add --agent` made: still a link to (or a copy of) its skill,
      // found from the lockfile's base as the skills are.
      const targets = await targetProblems(lock.skills, join(base, basename(file)));
      const result = { ...verified, ok: verified.ok && targets.length === 0 };
      if (args.json) {
        out({
          ok: result.ok,
          ...signed === undefined ? {} : {
            signature: {
              file: signed.signature,
              key: signed.check.fingerprint,
              principals: signed.check.principals,
            },
          },
          differences: result.differences,
          errors: result.errors,
          targets: targets.map((p) => ({
            name: p.name,
            agent: p.target.agent,
            path: p.target.path,
            state: p.target.state,
          })),
        });
      } else {
        for (const d of result.differences) io.stdout(`${describeDifference(d, frozen)}\n`);
        for (const e of result.errors) {
          io.stdout(`error   ${esc(e.key)} (${esc(e.name)}): ${esc(e.message)}\n`);
        }
        for (const p of targets) io.stdout(`${p.target.state.padEnd(7)} ${esc(p.message)}\n`);
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
      const { roots, discovery } = discover();
      if (!rootsHoldSkills(roots, discovery, rootFlags.length > 0, allowEmpty, io)) return 1;
      for (const name of all ? [] : args.positional) {
        if (discovery.skill(name) === undefined) {
          throw unknownName("skill", name, discovery.skills.map((s) => s.name));
        }
      }
      const records = await approveSkills(discovery, store, all ? "all" : args.positional);
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
    case "activate":
    case "read":
      return await trustedFolderCommand(command, args, load, io);
    case "to-prompt":
    case "search": {
      const discovery = command === "to-prompt"
        ? toPromptDiscovery(args.positional, load, toolList(args.flags.get("--tools")))
        : listDiscovery([], rootFlags, load).discovery;
      const modes = modesFlag(args.flags.get("--modes"));
      assertModesNameSkills(modes, discovery);
      const trusted = await narrowed(discovery, args, io);
      return command === "to-prompt"
        ? toPromptCommand(
          args.positional,
          count(args.flags, "--budget", 0),
          load,
          args.json,
          io,
          toolList(args.flags.get("--tools")),
          {
            ...rankOf(args.flags.get("--rank"), args.flags.get("--usage-log")),
            verbosity: args.verbosity,
            checked: trusted,
            modes,
            report: args.switches.has("--report"),
            profiles: profileFlags(args.flags, args.repeated, args.switches),
          },
        )
        : searchCommand(
          args.positional.join(" "),
          rootFlags,
          {
            limit: count(args.flags, "--limit", 1),
            lang: args.flags.get("--lang"),
            profiles: profileFlags(args.flags, args.repeated, args.switches),
          },
          args.json,
          io,
          trusted,
        );
    }
    default: {
      // list --approvals FILE [--lockfile FILE]
      const lockfile = args.flags.get("--lockfile");
      const approvalsFile = args.flags.get("--approvals");
      const profiles = profileFlags(args.flags, args.repeated, args.switches);
      const found = discover(args.positional);
      const roots = found.roots;
      let discovery = found.discovery;
      if (lockfile !== undefined) {
        discovery = await trustDiscovery(discovery, { lock: resolve(lockfile) });
        refusals(discovery, io);
      }
      if (approvalsFile === undefined) {
        return listCommand(args.positional, rootFlags, load, args.json, io, { roots, discovery }, {
          allowEmpty,
          verbosity: args.verbosity,
          profiles,
        });
      }
      const store = new JsonFileApprovalStore(approvalsFile);
      const standings = await trustStandings(discovery, { approvals: store });
      const approvals = new Map(standings.map((s) => [s.skill.path, {
        approval: s.approval?.status ?? "unreadable",
        changes: s.approval?.changes ?? [],
      }]));
      return listCommand(args.positional, rootFlags, load, args.json, io, {
        roots,
        discovery,
        approvals,
      }, { allowEmpty, verbosity: args.verbosity, profiles });
    }
  }
}

/**
 * The folder a lockfile's roots and sources are resolved from
 * (`docs/security.md#signed-root`): for version 3, its recorded base under
 * the repository root, wherever the lockfile lies (a copy elsewhere vouches
 * for the same tree, never for the tree beside it); for versions 1 and 2,
 * the lockfile's own folder, which a signed verify accepts only when it is
 * the repository root.
 *
 * @throws {TrustFileError} `UNROOTED_LOCKFILE` for a signed lockfile of version 1 or 2 elsewhere.
 */
function lockBase(lock: Lockfile, file: string, signed: boolean, io: CliIO): string {
  const beside = dirname(file);
  const repository = repositoryRoot();
  if (lock.base !== undefined) {
    const base = resolve(repository, lock.base);
    if (base !== beside) {
      io.stderr(
        `skillset: note: ${esc(file)} records base "${
          esc(lock.base)
        }": its roots and sources are resolved from ${esc(base)}, not beside it\n`,
      );
    }
    return base;
  }
  if (signed && beside !== repository) {
    throw new TrustFileError(
      "UNROOTED_LOCKFILE",
      file,
      `A signed lockfile of version ${lock.version} records no base: its roots would be read beside it, not from the repository root "${
        esc(repository)
      }"; re-lock and re-sign it (skillset lock, skillset sign) to record one`,
    );
  }
  return beside;
}

/**
 * Refuse a lockfile whose roots lead out of the project
 * (`docs/security.md#project-paths`): each root, resolved from the base,
 * must lie inside the repository root or the lockfile's own folder, by its
 * path and by its real path (that of its deepest existing part), so a
 * cloned lockfile cannot make `verify` read and name skills elsewhere on
 * the machine.
 *
 * @throws {TrustFileError} `INVALID_FIELD` naming the root.
 */
function assertRootsInside(lock: Lockfile, file: string, base: string): void {
  const folders = [repositoryRoot(), dirname(file)];
  for (const r of lock.roots ?? []) {
    const path = resolve(base, r.path);
    if (!folders.some((f) => within(path, f) && within(realOfDeepest(path), realOfDeepest(f)))) {
      throw new TrustFileError(
        "INVALID_FIELD",
        file,
        `Root ${JSON.stringify(r.path)} of the lockfile leads out of the project (${
          JSON.stringify(folders[0])
        }): a lockfile's roots stay inside it`,
      );
    }
  }
}

/** Whether `path` is `folder` or lies below it. */
function within(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/** The real path of a path's deepest existing part, with the rest appended. */
function realOfDeepest(path: string): string {
  let existing = path, rest = "";
  for (;;) {
    try {
      return join(realpathSync(existing), rest);
    } catch {
      const up = dirname(existing);
      if (up === existing) return path;
      rest = join(basename(existing), rest);
      existing = up;
    }
  }
}

/** The trust options of `--lockfile` and `--approvals`. */
function trustOptions(args: Args): { lock?: string; approvals?: JsonFileApprovalStore } {
  const lockfile = args.flags.get("--lockfile");
  const approvals = args.flags.get("--approvals");
  return {
    ...lockfile === undefined ? {} : { lock: resolve(lockfile) },
    ...approvals === undefined ? {} : { approvals: new JsonFileApprovalStore(approvals) },
  };
}

/** A discovery narrowed by `--lockfile` and `--approvals`, each refused skill named on stderr. */
async function narrowed(discovery: Discovery, args: Args, io: CliIO): Promise<Discovery> {
  const trusted = await trustDiscovery(discovery, trustOptions(args));
  refusals(trusted, io);
  return trusted;
}

const REFUSED = new Set(["LOCK_MISMATCH", "NOT_LOCKED", "NEEDS_APPROVAL"]);

function refusals(discovery: Discovery, io: CliIO): void {
  for (const s of discovery.skipped) {
    for (const d of s.diagnostics) {
      if (REFUSED.has(d.code)) io.stderr(`skillset: refused: ${esc(s.path)}: ${esc(d.message)}\n`);
    }
  }
}

/**
 * `activate` and `read` of one folder under `--lockfile`/`--approvals`: the
 * folder is loaded once, hashed, compared with its lock entry and approval,
 * and the command runs on that very bundle, pinned to what was hashed.
 */
async function trustedFolderCommand(
  command: "activate" | "read",
  args: Args,
  load: DiscoveryFlags,
  io: CliIO,
): Promise<number> {
  const [dir = "", path = ""] = args.positional;
  const options = trustOptions(args);
  const skill = loadSkillFolder(dir, { lenient: true, ...load });
  const manifest = await skillManifest(skill);
  const problems: string[] = [];
  const others = otherEntries(skill);
  if (options.lock !== undefined) {
    const lock = loadLock(options.lock);
    const mismatch = await lockMismatch(lock, dir, manifest, others);
    if (mismatch !== null) problems.push(mismatch.message);
  }
  if (options.approvals !== undefined) {
    const decision = await decideApproval(options.approvals, FILE_ORIGIN, dir, manifest, others);
    if (decision.status === "needs_approval") problems.push(`Skill "${skill.name}" needs approval`);
    else if (decision.status !== "approved") {
      problems.push(
        `Skill "${skill.name}" changed since it was approved: ${approvalChanges(decision)}`,
      );
    }
  }
  if (problems.length > 0) {
    for (const p of problems) io.stderr(`skillset: refused: ${esc(dir)}: ${esc(p)}\n`);
    return 1;
  }
  const checked = pinBundle(skill, manifest);
  // Its dependencies are found under --root as without a lock; only skills that pass the same
  // checks (locked as they are, approved as they are) satisfy one.
  const roots = args.repeated.get("--root") ?? [];
  const found = command === "activate" ? dependencyDiscovery(skill, roots, load) : undefined;
  const trusted = found === undefined ? undefined : new Set(
    (await trustDiscovery(found, options)).skills.map((s) => s.path),
  );
  return command === "activate"
    ? activateCommand(
      dir,
      args.flags,
      load,
      args.json,
      io,
      args.verbosity,
      checked,
      roots,
      trusted === undefined ? undefined : (s) => trusted.has((s as { path?: string }).path ?? ""),
    )
    : readCommand(dir, path, args.flags, load, args.json, io, args.verbosity, checked);
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
