/**
 * Resources: activation of a 10,000-file skill folder against a bare
 * recursive readdir + stat of the same folder; paging through a 100 MiB text
 * file against reading it in 1 MiB chunks and decoding them; base64 of
 * 16 MiB against the runtime's built-in encoders.
 * Run: `npm run bench -- resources`.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { activateSkill, encodeBase64, readResource } from "../mod.ts";
import { encodeBase64Table } from "../lib/core/resources/base64.ts";
import { loadSkillFolder } from "../lib/load.ts";
import { QUICK, timeGroup } from "./_harness.ts";
import { BASE64_CASE, BASE64_WORKLOAD } from "./_report.ts";

const FILES = QUICK ? 2000 : 10_000;
const PAGED_MIB = QUICK ? 10 : 100;
const BASE64_BYTES = 16 * 1024 * 1024;
const temp = mkdtempSync(join(tmpdir(), "skillset-bench-"));

const skill = join(temp, "big-skill");
const FOLDERS = ["references", "assets", "scripts", "extras", "references/deep", "assets/img"];
for (const folder of FOLDERS) mkdirSync(join(skill, folder), { recursive: true });
writeFileSync(
  join(skill, "SKILL.md"),
  "---\nname: big-skill\ndescription: Many files\n---\nBody\n",
);
for (let i = 0; i < FILES; i++) {
  writeFileSync(join(skill, FOLDERS[i % FOLDERS.length]!, `file-${i}.md`), `# ${i}\n`);
}

/** The bare baseline: readdir per folder, stat per file, nothing else. */
function bareWalk(root: string): number {
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else total += statSync(full).size;
    }
  }
  return total;
}

await timeGroup("resources", "activate a skill folder (files)", FILES, [
  { name: "bare recursive readdir + stat", fn: () => bareWalk(skill), baseline: true },
  {
    name: "loadSkillFolder + activateSkill",
    fn: () => activateSkill(loadSkillFolder(skill)),
  },
]);

// A big text file in its own skill.
const paged = join(temp, "paged");
mkdirSync(join(paged, "references"), { recursive: true });
writeFileSync(join(paged, "SKILL.md"), "---\nname: paged\ndescription: d\n---\n");
const line = "The quick brown fox jumps over the lazy dog — ünïcödé 0123456789\n";
const block = new TextEncoder().encode(line.repeat(16 * 1024));
const bigFile = join(paged, "references", "big.md");
const fd = openSync(bigFile, "w");
for (let written = 0; written < PAGED_MIB * 1024 * 1024; written += block.length) {
  writeSync(fd, block);
}
closeSync(fd);

/** The bare baseline: read the file in 1 MiB chunks and decode each as UTF-8. */
function bareChunks(file: string): number {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const buffer = new Uint8Array(1024 * 1024);
  const handle = openSync(file, "r");
  let chars = 0;
  try {
    for (let n = readSync(handle, buffer); n > 0; n = readSync(handle, buffer)) {
      chars += decoder.decode(buffer.subarray(0, n), { stream: true }).length;
    }
  } finally {
    closeSync(handle);
  }
  return chars;
}

/** Every page of the file through the public API, from a freshly loaded folder. */
function pageThrough(): number {
  const bundle = loadSkillFolder(paged);
  let offset: number | string | null = 0, chars = 0;
  while (offset !== null) {
    const page = readResource(bundle, "references/big.md", { offset });
    chars += page.content.length;
    offset = page.next_offset;
  }
  return chars;
}

if (pageThrough() !== bareChunks(bigFile)) throw new Error("the pages should hold the whole file");

await timeGroup("resources", "page through a text file (bytes)", statSync(bigFile).size, [
  { name: "bare: 1 MiB reads + UTF-8 decode", fn: () => bareChunks(bigFile), baseline: true },
  { name: "readResource, every page of 2000 lines", fn: pageThrough },
]);

const bytes = Uint8Array.from({ length: BASE64_BYTES }, (_, i) => (i * 2654435761) >>> 24);
const native = (Uint8Array.prototype as { toBase64?: (this: Uint8Array) => string }).toBase64;
if (encodeBase64(bytes) !== Buffer.from(bytes).toString("base64")) {
  throw new Error("encodeBase64 should agree with Buffer");
}

function buffer64(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString("base64");
}

await timeGroup("resources", BASE64_WORKLOAD, BASE64_BYTES, [
  {
    name: 'built-in Buffer#toString("base64")',
    fn: () => buffer64(bytes),
    baseline: true,
  },
  {
    name: "built-in Uint8Array#toBase64",
    fn: () => native!.call(bytes),
    ...(native === undefined ? { skip: "this runtime has no Uint8Array#toBase64" } : {}),
  },
  { name: BASE64_CASE, fn: () => encodeBase64(bytes) },
]);

// The portable encoder is ten times slower: timed on its own, in interleaved rounds, so the
// few-millisecond built-ins above keep mitata's many samples (rounds gave them bimodal medians).
await timeGroup("resources", "base64, portable encoder (bytes)", BASE64_BYTES, [
  { name: 'built-in Buffer#toString("base64")', fn: () => buffer64(bytes), baseline: true },
  { name: "encodeBase64Table (the portable encoder)", fn: () => encodeBase64Table(bytes) },
], { interleave: true });

rmSync(temp, { recursive: true, force: true });
