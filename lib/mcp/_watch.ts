/**
 * Watching served folders: {@linkcode watchSkills} reloads a server's catalog
 * when its folders change, found by a poll bounded in work and time
 * ({@linkcode Sweeper}, the same on every runtime and file system) and, where
 * the runtime has them, file-system events ({@linkcode FolderEvents}).
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import { type Dir, existsSync, type FSWatcher, opendirSync, statSync, watch } from "node:fs";
import { join, resolve } from "node:path";
import type { SkillCatalogChanges } from "@modelcontextprotocol/server/ext/skills";
import type { SkillServer } from "./_serve_options.ts";

/**
 * What a catalog reload changed (`SkillCatalogChanges` of the SDK's skills extension).
 *
 * @internal
 */
type SdkSkillCatalogChanges = SkillCatalogChanges;

/** Options of {@linkcode watchSkills}. */
export interface WatchOptions {
  /** How often a tick runs; default 500 ms. */
  readonly intervalMs?: number;
  /** Entries (files and folders) looked at per tick at most; default 2,000. */
  readonly entriesPerTick?: number;
  /** Time one tick may take at most, in milliseconds; default 4. */
  readonly tickMs?: number;
  /** Entries one sweep looks at at most (the rest are not watched); default 200,000. */
  readonly maxEntries?: number;
  /**
   * File-system events as well as the poll, where the runtime has them
   * (`fs.watch`): one watch per folder the sweep looks at, so a change is
   * seen at once instead of at the end of a sweep; default true. They are
   * not used when a sweep finds more than `maxWatchedFolders` folders, nor
   * after a watch fails (the poll carries on alone).
   */
  readonly events?: boolean;
  /** Folders watched for events at most; default 4,096. */
  readonly maxWatchedFolders?: number;
  /** Called after each successful reload that changed something. */
  readonly onReload?: (changes: SdkSkillCatalogChanges) => void;
  /** Called when a reload fails (the previous catalog keeps serving). */
  readonly onError?: (error: unknown) => void;
}

/**
 * Reload a served catalog whenever the folders change. Change detection is a
 * poll bounded in work and time, the same on every runtime and file system:
 * each tick (every `intervalMs`) looks at up to `entriesPerTick` entries
 * (one `stat` each) and stops after `tickMs`, carrying on where it stopped at
 * the next tick; a sweep over the whole tree sums each entry's path, size,
 * modification time and inode, and a sum that differs from the previous
 * sweep's reloads. A 10,000-file tree is swept in 5 ticks (about 2.5 s at the
 * defaults) and no tick holds request handling for more than a few
 * milliseconds. Folders named `.git` and `node_modules` are not entered, nor
 * links to folders. Where the runtime has file-system events, each folder a
 * sweep looked at is also watched (up to `maxWatchedFolders`), and an event
 * reloads within about 50 ms; the poll stays, for what events miss (a change
 * in a folder not watched yet): a change an event reloaded for is reloaded
 * once more when the poll's sweep sees it.
 *
 * @param served From {@linkcode serveSkills}.
 * @param folders The folders it serves.
 * @param options Bounds and callbacks.
 * @returns A handle whose `close()` stops watching.
 * @example
 * ```ts
 * import { serveSkills, watchSkills } from "../mcp.ts";
 * import { assert } from "../core/_assert.ts";
 *
 * const folder = new URL("../../examples/skills", import.meta.url).pathname;
 * const served = await serveSkills([folder]);
 * const watcher = watchSkills(served, [folder], { intervalMs: 50 });
 * watcher.close();
 * assert.ok(served.skills.has("pdf"));
 * ```
 */
export function watchSkills(
  served: SkillServer,
  folders: readonly string[],
  options: WatchOptions = {},
): { close(): void } {
  const maxWatched = options.events === false ? 0 : options.maxWatchedFolders ?? 4096;
  const sweeper = new Sweeper(
    folders.map((f) => resolve(f)),
    options.maxEntries ?? 200_000,
    maxWatched,
  );
  // The first sweep runs now, whole: the baseline is the tree as it is served.
  let last = sweeper.sweep(Infinity, Infinity);
  while (last === undefined) last = sweeper.sweep(Infinity, Infinity);
  let busy = false;
  /** An event came while a reload ran: reload once more after it. */
  let again = false;
  let closed = false;
  const perTick = options.entriesPerTick ?? 2000;
  const tickMs = options.tickMs ?? 4;
  const reload = (then: () => void = () => {}): void => {
    busy = true;
    served.reload().then(
      (changes) => {
        then();
        const any = changes.added.length + changes.removed.length + changes.changed.length;
        if (any > 0) options.onReload?.(changes);
      },
      (error) => {
        then();
        options.onError?.(error);
      },
    ).finally(() => {
      busy = false;
      if (again && !closed) {
        again = false;
        changed();
      }
    });
  };
  // An event reloads at once. The poll keeps its baseline: a change the events miss (in a
  // folder not watched yet, say) still differs from it, so the poll reloads again for it.
  let soon: ReturnType<typeof setTimeout> | undefined;
  const changed = (): void => {
    soon ??= setTimeout(() => {
      soon = undefined;
      if (closed) return;
      if (busy) {
        again = true;
        return;
      }
      reload();
    }, 50);
  };
  const events = options.events === false ? undefined : new FolderEvents(maxWatched, changed);
  events?.watch(sweeper.folders);
  const timer = setInterval(() => {
    if (busy) return;
    const now = sweeper.sweep(perTick, tickMs);
    if (now === undefined) return;
    events?.watch(sweeper.folders);
    if (now === last) return;
    reload(() => (last = now));
  }, options.intervalMs ?? 500);
  return {
    close: () => {
      closed = true;
      clearInterval(timer);
      if (soon !== undefined) clearTimeout(soon);
      events?.close();
      sweeper.close();
    },
  };
}

/**
 * File-system events for a set of folders: one non-recursive `fs.watch`
 * each (so `.git`, `node_modules` and anything else the sweep skips are not
 * watched), replaced when the set changes. More folders than `max`, or a
 * watch that fails, and events stop for good: the poll carries on alone.
 */
class FolderEvents {
  readonly #max: number;
  readonly #onChange: () => void;
  #watchers = new Map<string, FSWatcher>();
  #off = false;

  constructor(max: number, onChange: () => void) {
    this.#max = max;
    this.#onChange = onChange;
  }

  /** Watch exactly `folders` (the last whole sweep's; `null`: too many), unless events are off. */
  watch(folders: ReadonlySet<string> | null): void {
    if (this.#off) return;
    if (folders === null || folders.size > this.#max) return this.close();
    for (const [folder, watcher] of this.#watchers) {
      if (folders.has(folder)) continue;
      watcher.close();
      this.#watchers.delete(folder);
    }
    for (const folder of folders) {
      if (this.#watchers.has(folder)) continue;
      let watcher: FSWatcher;
      try {
        watcher = watch(folder, { persistent: false }, () => this.#onChange());
      } catch {
        return this.close();
      }
      // A removed folder only reports a rename; a watch that fails stops events for good.
      watcher.on("error", () => this.close());
      this.#watchers.set(folder, watcher);
    }
  }

  close(): void {
    this.#off = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }
}

/** An incremental walk of the watched folders: a few entries per call, resumed where it stopped. */
class Sweeper {
  readonly #roots: readonly string[];
  readonly #max: number;
  #stack: string[] = [];
  #dir: { readonly path: string; readonly handle: Dir } | undefined;
  #sum = [0, 0];
  #count = 0;
  readonly #keep: number;
  /** Folders the sweep under way has opened so far; `null` past `keep` of them. */
  #opened: Set<string> | null = new Set();
  /** Folders the last whole sweep opened; `null` when there were more than `keep`. */
  folders: ReadonlySet<string> | null = new Set();

  /**
   * @param roots The folders to sweep.
   * @param max Entries a sweep looks at at most.
   * @param keep Folders a sweep remembers at most (for events).
   */
  constructor(roots: readonly string[], max: number, keep: number) {
    this.#roots = roots;
    this.#max = max;
    this.#keep = keep;
    this.#start();
  }

  #start(): void {
    this.#stack = [...this.#roots].reverse();
    this.#sum = [0, 0];
    this.#count = 0;
    this.#opened = new Set();
    for (const root of this.#roots) this.#add(root, existsSync(root) ? "root" : "missing");
  }

  /** Drop the sweep under way and start a new one. */
  #restart(): void {
    this.close();
    this.#start();
  }

  /**
   * Look at up to `entries` entries for at most `ms` milliseconds.
   *
   * @returns The sweep's fingerprint when this call finished a sweep, else `undefined`.
   */
  sweep(entries: number, ms: number): string | undefined {
    const until = performance.now() + ms;
    for (let done = 0; done < entries; done++) {
      if (done > 0 && (done & 31) === 0 && performance.now() > until) return undefined;
      if (this.#dir === undefined) {
        const next = this.#stack.pop();
        if (next === undefined || this.#count >= this.#max) {
          const fingerprint = `${this.#count}:${this.#sum[0]}:${this.#sum[1]}`;
          this.folders = this.#opened;
          this.#restart();
          return fingerprint;
        }
        try {
          this.#dir = { path: next, handle: opendirSync(next) };
          if (this.#opened !== null && this.#opened.size >= this.#keep) this.#opened = null;
          this.#opened?.add(next);
        } catch {
          this.#add(next, "unreadable");
        }
        continue;
      }
      let entry;
      try {
        entry = this.#dir.handle.readSync();
      } catch {
        entry = null;
      }
      if (entry === null) {
        this.close();
        continue;
      }
      const full = join(this.#dir.path, entry.name);
      if (entry.isDirectory() && entry.name !== ".git" && entry.name !== "node_modules") {
        this.#stack.push(full);
      }
      const stat = statSync(full, { throwIfNoEntry: false });
      this.#add(full, stat === undefined ? "gone" : `${stat.size}:${stat.mtimeMs}:${stat.ino}`);
    }
    return undefined;
  }

  /** Add an entry to the sweep's order-independent sums. */
  #add(path: string, state: string): void {
    const text = `${path}\0${state}`;
    let a = 0x811c9dc5, b = 0x01000193;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
    }
    this.#sum = [
      (this.#sum[0]! + (a >>> 0)) % 0x100000000,
      (this.#sum[1]! + (b >>> 0)) % 0x100000000,
    ];
    this.#count++;
  }

  close(): void {
    try {
      this.#dir?.handle.closeSync();
    } catch {
      // Already closed.
    }
    this.#dir = undefined;
  }
}
