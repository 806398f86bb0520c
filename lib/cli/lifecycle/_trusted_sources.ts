/**
 * The sources the user chose on this machine: `skillset add <source>` (and
 * `--trust-source URL` of `outdated` and `update`) records each source's URL
 * in the user's own state folder (the one config approval uses), and
 * `outdated` and `update` fetch only a source recorded there. A lockfile
 * comes with the project (a clone, a pull request), so its
 * `installed_from.url` never chooses on its own what is fetched
 * (`docs/security.md#lockfile-sources`).
 *
 * Folder `lib/cli/lifecycle/` — the lifecycle commands: add, outdated, update, remove.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { stateDir, type StateEnv, stateInProject } from "../_config_trust.ts";

/** Where the choice of the source at `url` is recorded (one file per URL: no lost writes). */
function recordOf(url: string, env: StateEnv): string {
  const name = createHash("sha256").update(url).digest("hex").slice(0, 32);
  return join(stateDir(env), "sources", `${name}.json`);
}

/**
 * Whether the user added (or named with `--trust-source`) this exact source URL on this machine.
 *
 * @param url The source's URL, as the lockfile's `installed_from.url` records it.
 * @param env The environment (default: the process's; `SKILLSET_STATE_DIR` names the state folder).
 * @param project The project the command works in (default: the working folder): a state folder
 *   inside it is the project's, and no record there counts.
 * @returns Whether a record of exactly this URL is in the state folder, outside the project.
 */
export function isSourceTrusted(
  url: string,
  env: StateEnv = process.env,
  project: string = process.cwd(),
): boolean {
  return stateInProject(project, env) === undefined && recorded(url, env);
}

function recorded(url: string, env: StateEnv): boolean {
  try {
    const record = JSON.parse(readFileSync(recordOf(url, env), "utf8")) as { url?: unknown };
    return record.url === url;
  } catch {
    return false;
  }
}

/**
 * Record a source the user chose (in the state folder, created private to the user).
 *
 * @param url The source's URL, as `add` records it in the lockfile.
 * @param env The environment (default: the process's).
 * @throws {Error} The file system's error when the state folder cannot be written.
 */
export function trustSource(url: string, env: StateEnv = process.env): void {
  if (recorded(url, env)) return;
  const file = recordOf(url, env);
  mkdirSync(join(stateDir(env), "sources"), { recursive: true, mode: 0o700 });
  // A new file (created exclusively) renamed into place: a reader sees it whole or not at all.
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ url })}\n`, { flag: "wx", mode: 0o600 });
  renameSync(temp, file);
}
