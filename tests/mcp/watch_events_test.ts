/**
 * `watchSkills` with file-system events: a change is seen as soon as the
 * file system reports it, not at the end of a poll sweep; without events (or
 * over the folder bound) only the poll sees it. The poll interval here is a
 * minute, so a reload within seconds can only come from an event.
 */
// @slow: watches folders changed by child processes (left out of `npm run test:quick`)
// @every-runtime: file watching differs between runtimes
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { eventually, put, skillMd, tempDir, within } from "../_mcp.ts";
import { serveSkills, watchSkills } from "../../lib/mcp.ts";

const temps: string[] = [];
after(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

/** A folder of two skills, served. */
async function served() {
  const root = realpathSync(tempDir());
  temps.push(root);
  put(root, "alpha/SKILL.md", skillMd("alpha", "First version"));
  put(root, "alpha/references/a.md", "# A\n");
  put(root, "beta/SKILL.md", skillMd("beta"));
  return { root, server: await serveSkills([root], { onWarning: () => {} }) };
}

/** Resolves with the first reload's changes; `watcher` stops watching. */
function firstReload(
  server: Awaited<ReturnType<typeof serveSkills>>,
  root: string,
  options: Parameters<typeof watchSkills>[2],
) {
  let watcher: { close(): void } | undefined;
  const reloaded = new Promise<{ changed: readonly unknown[]; added: readonly unknown[] }>(
    (done, fail) => {
      watcher = watchSkills(server, [root], { ...options, onReload: done, onError: fail });
    },
  );
  return { reloaded, close: () => watcher!.close() };
}

const MINUTE = 60_000;

describe("watchSkills with file-system events", () => {
  it("a changed SKILL.md reloads long before the poll would look", async () => {
    const { root, server } = await served();
    const watch = firstReload(server, root, { intervalMs: MINUTE });
    try {
      put(root, "alpha/SKILL.md", skillMd("alpha", "Second version"));
      const changes = await within(10_000, watch.reloaded, "an event-driven reload");
      assert.equal(changes.changed.length, 1);
      assert.equal(server.skills.get("alpha")?.frontmatter.description, "Second version");
    } finally {
      watch.close();
    }
  });

  it("a new skill in a new folder is seen too (its parent folder is watched)", async () => {
    const { root, server } = await served();
    const watch = firstReload(server, root, { intervalMs: MINUTE });
    try {
      mkdirSync(join(root, "gamma"));
      put(root, "gamma/SKILL.md", skillMd("gamma"));
      await within(10_000, watch.reloaded, "an event-driven reload");
      // The folder may be seen before its SKILL.md: one event-driven reload may not have it yet.
      await eventually(10_000, "gamma served", () => server.skills.has("gamma") || undefined, 50);
      assert.ok(server.skills.has("gamma"));
    } finally {
      watch.close();
    }
  });

  it("a change in a folder not watched yet, just after an event-driven reload, is still seen", async () => {
    const { root, server } = await served();
    let reloads = 0;
    let next: () => void = () => {};
    const watcher = watchSkills(server, [root], {
      intervalMs: 100,
      onReload: () => (reloads++, next()),
      onError: (e) => assert.fail(String(e)),
    });
    try {
      // A new skill: its folder is watched only once a sweep has looked at it.
      const added = new Promise<void>((done) => (next = done));
      put(root, "gamma/SKILL.md", skillMd("gamma", "First version"));
      await within(10_000, added, "gamma added");
      await eventually(10_000, "gamma served", () => server.skills.has("gamma") || undefined, 20);
      // At once, before the poll's next sweep has ended: no event comes from gamma's folder.
      put(root, "gamma/SKILL.md", skillMd("gamma", "Second version"));
      const description = () => server.skills.get("gamma")?.frontmatter.description;
      await eventually(
        10_000,
        "gamma's second version",
        () => description() === "Second version" || undefined,
        20,
      );
      assert.equal(server.skills.get("gamma")?.frontmatter.description, "Second version");
      assert.ok(reloads >= 2);
    } finally {
      watcher.close();
    }
  });

  it("with events: false, or more folders than maxWatchedFolders, only the poll sees a change", async () => {
    for (const options of [{ events: false }, { maxWatchedFolders: 2 }]) {
      const { root, server } = await served();
      const watch = firstReload(server, root, { intervalMs: MINUTE, ...options });
      try {
        put(root, "alpha/SKILL.md", skillMd("alpha", "Second version"));
        const seen = await Promise.race([
          watch.reloaded.then(() => "reloaded"),
          new Promise((ok) => setTimeout(() => ok("not yet"), 1500)),
        ]);
        assert.equal(seen, "not yet", JSON.stringify(options));
        assert.equal(server.skills.get("alpha")?.frontmatter.description, "First version");
      } finally {
        watch.close();
      }
      // The poll still works: at a short interval the same change is seen.
      const poll = firstReload(server, root, { intervalMs: 20, ...options });
      try {
        put(root, "alpha/SKILL.md", skillMd("alpha", "Third version"));
        await within(20_000, poll.reloaded, "a poll-driven reload");
        assert.equal(server.skills.get("alpha")?.frontmatter.description, "Third version");
      } finally {
        poll.close();
      }
    }
  });

  it("a watcher that is closed reloads no more", async () => {
    const { root, server } = await served();
    const watch = firstReload(server, root, { intervalMs: MINUTE });
    watch.close();
    put(root, "alpha/SKILL.md", skillMd("alpha", "Second version"));
    const seen = await Promise.race([
      watch.reloaded.then(() => "reloaded"),
      new Promise((ok) => setTimeout(() => ok("quiet"), 1000)),
    ]);
    assert.equal(seen, "quiet");
  });
});
