/**
 * Peak memory of reading big text files in pages: the whole file must never
 * be in memory. Pages through a 25 MiB file, then a 100 MiB one (5 and 20
 * under `--quick`), and records how much the peak resident set grew during
 * each: if reads held whole files, the second growth would be about 75 MiB
 * larger than the first.
 * Run: `npm run bench -- read_memory`.
 *
 * @module
 */
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { readResource } from "../mod.ts";
import { loadSkillFolder } from "../lib/load.ts";
import { QUICK, recordValue } from "./_harness.ts";

const MiB = 1024 * 1024;
const temp = mkdtempSync(join(tmpdir(), "skillset-mem-"));
const skill = join(temp, "mem");
mkdirSync(join(skill, "references"), { recursive: true });
writeFileSync(join(skill, "SKILL.md"), "---\nname: mem\ndescription: d\n---\n");
const line = "The quick brown fox jumps over the lazy dog — ünïcödé 0123456789\n";
const block = new TextEncoder().encode(line.repeat(16 * 1024));
const SIZES = QUICK ? [5, 20] : [25, 100];
for (const mib of SIZES) {
  const fd = openSync(join(skill, "references", `${mib}.md`), "w");
  for (let written = 0; written < mib * MiB; written += block.length) writeSync(fd, block);
  closeSync(fd);
}

const maxRss = (): number => process.resourceUsage().maxRSS * 1024;
const mib = (n: number) => `${(n / MiB).toFixed(1)} MiB`;
const bundle = loadSkillFolder(skill);
const limit = 2000;

for (const size of SIZES) {
  const before = maxRss();
  let pages = 0, largestPage = 0, offset: number | string | null = 0, bytesRead = 0;
  while (offset !== null) {
    const page = readResource(bundle, `references/${size}.md`, { offset, limit });
    const pageBytes = page.content.length * 2; // UTF-16 in memory
    largestPage = Math.max(largestPage, pageBytes);
    bytesRead += page.content.length;
    pages++;
    offset = page.next_offset;
  }
  const growth = maxRss() - before;
  recordValue({
    bench: "read_memory",
    workload: "peak RSS growth paging a text file (MiB)",
    size,
    case: "readResource, every page",
    median: null,
    p75: null,
    p99: null,
    samples: 1,
    baseline: null,
    ratio: null,
    value: growth,
    note: `${(growth / (size * MiB)).toFixed(2)}x the file`,
  });
  console.log(
    `${size} MiB file: ${pages} pages of ${limit} lines (largest page ${
      mib(largestPage)
    } in memory); ` +
      `peak RSS grew ${mib(growth)} (${(growth / largestPage).toFixed(0)}x the page, ` +
      `${(growth / (size * MiB)).toFixed(2)}x the file)`,
  );
}
rmSync(temp, { recursive: true, force: true });
