/**
 * Shared by the serve benches: a synthetic skills folder, and a server child
 * process (this project's or the SDK-only peer, `bench/_serve_child.ts`) on
 * the bench's own runtime.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/** A folder of `n` skills, each a SKILL.md and two 1 KiB references. */
export function syntheticSkills(n: number): string {
  const root = mkdtempSync(join(tmpdir(), "skillset-serve-bench-"));
  const body = "Reference text. ".repeat(64);
  for (let i = 0; i < n; i++) {
    const name = `skill-${String(i).padStart(5, "0")}`;
    mkdirSync(join(root, name, "references"), { recursive: true });
    writeFileSync(
      join(root, name, "SKILL.md"),
      `---\nname: ${name}\ndescription: Synthetic skill number ${i} for the serve bench\n---\n# ${name}\n\nDo it.\n`,
    );
    writeFileSync(join(root, name, "references", "a.md"), `# A ${i}\n${body}\n`);
    writeFileSync(join(root, name, "references", "b.md"), `# B ${i}\n${body}\n`);
  }
  return root;
}

/** A running server child. */
export interface ServerChild {
  readonly url: string;
  readonly child: ChildProcess;
  /** Milliseconds from spawn to the `listening` line. */
  readonly listenedMs: number;
  /** RSS of the child after a collection. */
  rss(): Promise<number>;
  /** RSS and used heap of the child after a collection. */
  memory(): Promise<{ rss: number; heap: number }>;
  /** Microseconds of CPU (user + system) the child has used so far. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

function command(script: string, args: readonly string[]): [string, string[]] {
  const versions = process.versions as Record<string, string | undefined>;
  if (versions["deno"] !== undefined) {
    return [process.execPath, ["run", "-A", "--v8-flags=--expose-gc", script, ...args]];
  }
  if (versions["bun"] !== undefined) return [process.execPath, [script, ...args]];
  return [process.execPath, ["--expose-gc", "--import", "tsx", script, ...args]];
}

/** Start `bench/_serve_child.ts <mode> <folder>` (`locked`: served under a lockfile) and wait until it listens. */
export async function startServer(
  mode: "skillset" | "sdk" | "locked",
  folder: string,
): Promise<ServerChild> {
  const script = new URL("./_serve_child.ts", import.meta.url).pathname;
  const [cmd, args] = command(script, [mode, folder]);
  const started = performance.now();
  const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  const waiters: (() => void)[] = [];
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    out += d;
    for (const w of waiters.splice(0)) w();
  });
  const line = (prefix: string): Promise<string> =>
    new Promise((ok, fail) => {
      const check = () => {
        const at = out.indexOf(prefix);
        const end = at < 0 ? -1 : out.indexOf("\n", at);
        if (end >= 0) {
          const value = out.slice(at + prefix.length, end);
          out = out.slice(end + 1);
          ok(value);
        } else if (child.exitCode !== null) fail(new Error(`${mode} server exited`));
        else waiters.push(check);
      };
      check();
    });
  const url = await line("listening ");
  const listenedMs = performance.now() - started;
  return {
    url,
    child,
    listenedMs,
    rss: async () => {
      child.stdin!.write("rss\n");
      return Number((await line("rss ")).split(" ")[0]);
    },
    memory: async () => {
      child.stdin!.write("rss\n");
      const [rss, heap] = (await line("rss ")).split(" ").map(Number);
      return { rss: rss!, heap: heap! };
    },
    cpu: async () => {
      child.stdin!.write("cpu\n");
      return Number(await line("cpu "));
    },
    stop: async () => {
      const exited = new Promise((ok) => child.once("exit", ok));
      child.stdin!.end();
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The `q` quantile of sorted numbers. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
