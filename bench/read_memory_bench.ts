/**
 * Peak memory of reading a 100 MiB text file in pages: the whole file must
 * never be in memory. Prints the growth of the peak resident set size while
 * every page is read, against the page size. Run: `npm run bench -- read_memory`.
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

const SIZE = 100 * 1024 * 1024;
const temp = mkdtempSync(join(tmpdir(), "skillset-mem-"));
const skill = join(temp, "mem");
mkdirSync(join(skill, "references"), { recursive: true });
writeFileSync(join(skill, "SKILL.md"), "---\nname: mem\ndescription: d\n---\n");
const line = "The quick brown fox jumps over the lazy dog — ünïcödé 0123456789\n";
const block = new TextEncoder().encode(line.repeat(16 * 1024));
const fd = openSync(join(skill, "references/huge.md"), "w");
for (let written = 0; written < SIZE; written += block.length) writeSync(fd, block);
closeSync(fd);

const maxRss = (): number => process.resourceUsage().maxRSS * 1024;
const bundle = loadSkillFolder(skill);
const limit = 2000;
const before = maxRss();
let pages = 0, largestPage = 0, offset: number | null = 0, bytesRead = 0;
while (offset !== null) {
  const page = readResource(bundle, "references/huge.md", { offset, limit });
  const pageBytes = new TextEncoder().encode(page.content).length;
  largestPage = Math.max(largestPage, pageBytes);
  bytesRead += pageBytes;
  pages++;
  offset = page.next_offset;
}
const growth = maxRss() - before;
const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
console.log(
  `file ${mib(bytesRead)} read in ${pages} pages of ${limit} lines (largest page ${
    mib(largestPage)
  })`,
);
console.log(`peak RSS before ${mib(before)}, growth while paging ${mib(growth)}`);
console.log(
  `growth / page size = ${(growth / largestPage).toFixed(1)}x; growth / file size = ${
    (growth / SIZE).toFixed(3)
  }`,
);
rmSync(temp, { recursive: true, force: true });
