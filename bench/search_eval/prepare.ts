/**
 * Make one collection file of the search evaluation from a checkout of a
 * public skill collection: each skill's name, description (and any
 * `description-<lang>` metadata) and the first 32 KiB of its SKILL.md body,
 * with the collection's source, commit and licence text.
 *
 * The collections are not committed here (fetched material stays out of this
 * repository's commits): `requests.json` names each one's source and commit;
 * get that commit, then run, for each:
 *
 * `node --import tsx bench/search_eval/prepare.ts CHECKOUT OWNER/NAME COMMIT OUT_DIR`
 *
 * which writes `OUT_DIR/OWNER+NAME.json`. `search_bench.ts` reads that folder
 * from `SKILLSET_SEARCH_EVAL` (and skips the evaluation when it is unset).
 *
 * @module
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse } from "yaml";

/** The most UTF-16 units of a body kept. */
const BODY_BOUND = 32 * 1024;

interface CollectedSkill {
  name: string;
  description: string;
  metadata?: Record<string, string>;
  path: string;
  body: string;
}

function walk(dir: string, out: string[]): void {
  for (const entry of readdirSync(dir).sort()) {
    if (entry === ".git" || entry === "node_modules") continue;
    const p = join(dir, entry);
    const s = statSync(p, { throwIfNoEntry: false });
    if (s === undefined) continue;
    if (s.isDirectory()) walk(p, out);
    else if (entry === "SKILL.md") out.push(p);
  }
}

function read(file: string, root: string): CollectedSkill | undefined {
  const text = readFileSync(file, "utf8").replace(/^\uFEFF/, "");
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (m === null) return undefined;
  let front: unknown;
  try {
    front = parse(m[1]!);
  } catch {
    return undefined;
  }
  if (typeof front !== "object" || front === null) return undefined;
  const f = front as Record<string, unknown>;
  if (typeof f["name"] !== "string" || typeof f["description"] !== "string") return undefined;
  const metadata: Record<string, string> = {};
  const meta = f["metadata"];
  if (typeof meta === "object" && meta !== null) {
    for (const [k, v] of Object.entries(meta)) {
      if (k.startsWith("description-") && typeof v === "string") metadata[k] = v;
    }
  }
  return {
    name: f["name"].trim(),
    description: f["description"].trim(),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    path: relative(root, file),
    body: m[2]!.slice(0, BODY_BOUND),
  };
}

if (process.argv[1]?.endsWith("prepare.ts")) {
  const [checkout, source, commit, out] = process.argv.slice(2);
  if (checkout === undefined || source === undefined || commit === undefined || out === undefined) {
    console.error("usage: prepare.ts CHECKOUT OWNER/NAME COMMIT OUT_DIR");
    process.exit(2);
  }
  const files: string[] = [];
  walk(checkout, files);
  const seen = new Set<string>();
  const skills: CollectedSkill[] = [];
  for (const file of files) {
    const s = read(file, checkout);
    if (s === undefined || seen.has(s.name)) continue;
    seen.add(s.name);
    skills.push(s);
  }
  const license = ["LICENSE", "LICENSE.md", "LICENSE.txt"].map((n) => join(checkout, n))
    .find((p) => statSync(p, { throwIfNoEntry: false })?.isFile());
  mkdirSync(out, { recursive: true });
  const file = join(out, `${source.replace("/", "+")}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      source,
      commit,
      license: license === undefined ? null : readFileSync(license, "utf8"),
      skills,
    }),
  );
  console.log(`${file}: ${skills.length} skills`);
}
