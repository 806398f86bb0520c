/**
 * Fuzzing the parsers and the CLI: random bytes, and near-valid YAML made from
 * valid documents by mutation. The law: only this module's typed errors
 * escape (nothing else is thrown, the CLI never crashes nor reports an
 * internal error), and every case ends: each target runs 200 cases
 * in-process first, then its many cases in a child process killed after
 * 60 s, so a case that hangs fails the test instead of holding back the file.
 *
 * 10,000 cases per target on Node, 1,000 on Deno and Bun; `FC_RUNS` sets it.
 *
 * @module
 */
// @slow: fuzzes the CLI in child processes (left out of `npm run test:quick`)
import { describe, it } from "node:test";
import { fuzzCatalogParser, fuzzCli, fuzzSkillMdParser } from "../_fuzz.ts";
import { runLarge } from "../_large.ts";

const RUNS = "Deno" in globalThis || "Bun" in globalThis ? 1_000 : 10_000;
const FIRST = 200;

describe("fuzzing", () => {
  it("the catalog parser throws only SkillDefinitionError", () => {
    fuzzCatalogParser(FIRST);
    runLarge("_fuzz.ts", "fuzzCatalogParser", [RUNS]);
  });

  it("the SKILL.md parser throws only AgentSkillError", () => {
    fuzzSkillMdParser(FIRST);
    runLarge("_fuzz.ts", "fuzzSkillMdParser", [RUNS]);
  });

  it("the CLI in-process never crashes on a fuzzed catalog or SKILL.md", () => {
    fuzzCli(FIRST);
    runLarge("_fuzz.ts", "fuzzCli", [RUNS]);
  });
});
