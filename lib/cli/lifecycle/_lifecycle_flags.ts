/**
 * The flags, usage lines and help of the lifecycle commands (`add`,
 * `agents`, `outdated`, `update`, `remove`), for the command table of `main.ts`; the
 * commands run in `_lifecycle.ts`, loaded on demand.
 *
 * Folder `lib/cli/lifecycle/` — the lifecycle commands: add, outdated, update, remove.
 *
 * @module
 */
import type { ArgSpec } from "../_args.ts";

const SCOPE_HELP =
  "--scope project (default) installs into .agents/skills with the lockfile skills.lock.json in\n" +
  "this folder; --scope user into ~/.agents/skills with ~/.agents/skills.lock.json. --lockfile\n" +
  "FILE names another lockfile. Needs the git program (SKILLSET_GIT names another).";

const TRUST_HELP =
  "Only sources added on this machine are fetched (skillset add records each in the user's state\n" +
  "folder); a skill whose lockfile names another source is refused (UNTRUSTED_SOURCE).\n" +
  "--trust-source URL records URL as add does.\n";

/** The help entries of the lifecycle commands; they run in lib/cli/lifecycle/_lifecycle.ts (asynchronous: git). */
export const LIFECYCLE_COMMANDS: Readonly<Record<string, ArgSpec & { readonly help: string }>> = {
  add: {
    values: ["--skill", "--scope", "--ref", "--digest", "--lockfile", "--agent"],
    repeated: ["--skill", "--agent"],
    switches: ["--copy"],
    positional: [1, 1],
    usage:
      "skillset add <source> [--skill NAME]... [--agent NAME[,NAME...]]... [--copy] [--scope project|user] [--ref REF] [--digest sha256:HEX] [--lockfile FILE] [--json]",
    help:
      "Install skills from a git repository (any URL git takes, or a local path; --ref a branch,\n" +
      "tag or full commit), a folder, or npm:<package>[/<path>] (a package installed in node_modules:\n" +
      "its skills/ folder, or <path>): the skills discovery finds from its root (or those named by\n" +
      "--skill), each staged and moved into place whole, and locked with where it came from (URL, ref,\n" +
      "commit, path). Nothing from the source runs (no hooks, filters, submodules or LFS); a skill\n" +
      "folder holding a link out of it, over 512 files or 16 MiB, a name with a control character,\n" +
      "a nested .git or a submodule is refused. Exits 1 when any skill was refused.\n" +
      "--agent NAME[,NAME...] (or all-detected) also links each skill into those agents' skills\n" +
      "folders (--copy copies it instead): see skillset agents.\n" +
      "https://<host>[/<path>] installs the skills published at <path>/.well-known/skills/ (the\n" +
      "index.json layout vercel's skills CLI reads) over HTTPS only, at the digest --digest pins\n" +
      "(required: the layout publishes none; a refusal names the digest served). --digest also\n" +
      "checks a folder or npm source's digest.\n" + SCOPE_HELP,
  },
  agents: {
    values: ["--scope"],
    positional: [0, 0],
    usage: "skillset agents [--scope project|user] [--json]",
    help:
      "List the agents add --agent knows, each with its project and user skills folders, and those\n" +
      "detected here (their folder is in the project) and in the home. --agent all-detected names\n" +
      "the detected ones of the scope.",
  },
  outdated: {
    values: ["--scope", "--lockfile", "--trust-source"],
    repeated: ["--trust-source"],
    positional: [0, 0],
    usage:
      "skillset outdated [--trust-source URL]... [--scope project|user] [--lockfile FILE] [--json]",
    help:
      "Report each installed skill: up to date, stale (its source moved on), modified (the local\n" +
      "copy differs from the lockfile), or stale+modified. One git ls-remote per source; writes\n" +
      "nothing. Exits 1 unless every skill is up to date.\n" + TRUST_HELP + SCOPE_HELP,
  },
  update: {
    values: ["--scope", "--lockfile", "--commit", "--trust-source"],
    repeated: ["--trust-source"],
    switches: ["--preview", "--force"],
    positional: [0, Infinity],
    usage:
      "skillset update [NAME]... [--preview] [--force] [--commit REV] [--trust-source URL]... [--scope project|user] [--lockfile FILE] [--json]",
    help:
      "Update installed skills (all, or those named) from their sources: each file added, removed\n" +
      "or changed with its sizes, and a unified diff for small text files; then the new version is\n" +
      "moved into place and the lockfile rewritten. --preview shows the changes and writes nothing;\n" +
      "a skill changed locally is refused unless --force; --commit REV applies only if the source\n" +
      "is still at that revision, a commit or a folder's digest (as outdated or a preview showed\n" +
      "it); a well-known (https) source moves only with --commit, to the digest its publisher\n" +
      "gives. All skills change, with the lockfile, or none.\n" + TRUST_HELP + SCOPE_HELP,
  },
  remove: {
    values: ["--scope", "--lockfile"],
    switches: ["--force"],
    positional: [1, Infinity],
    usage: "skillset remove <name>... [--force] [--scope project|user] [--lockfile FILE] [--json]",
    help:
      "Remove installed skills: each folder (exactly <install root>/<name>), and its lockfile entry,\n" +
      "all or none. A skill changed here since it was locked is refused unless --force. Exits 1\n" +
      "when any skill was refused.\n" + SCOPE_HELP,
  },
};
