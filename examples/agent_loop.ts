/**
 * A tiny scripted agent loop around the `skill` tool: no network and no
 * model, just a list of tool calls played in order, as a model would send
 * them. Run: `npx tsx examples/agent_loop.ts` (or `deno run -A`, `bun`).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import process from "node:process";
import {
  handleSkillTool,
  type SkillToolContext,
  skillToolDefinition,
  toAnthropicTool,
} from "../mod.ts";
import { loadSkillFolder } from "../lib/load.ts";

/** One scripted step: what the model calls, under which safety settings. */
interface Step {
  readonly note: string;
  readonly input: unknown;
  readonly safe: boolean;
}

const STEPS: readonly Step[] = [
  { note: "activate the skill", input: { skill: "pdf" }, safe: true },
  {
    note: "read a text asset",
    input: { skill: "pdf", resource: "assets/template.txt" },
    safe: true,
  },
  { note: "read a binary asset", input: { skill: "pdf", resource: "assets/logo.png" }, safe: true },
  {
    note: "read a reference, first page",
    input: { skill: "pdf", resource: "references/forms.md", limit: 5 },
    safe: true,
  },
  {
    note: "read a reference, next page",
    input: { skill: "pdf", resource: "references/forms.md", offset: 5, limit: 5 },
    safe: true,
  },
  {
    note: "read a non-standard file (refused)",
    input: { skill: "pdf", resource: "canvas-fonts/NOTICE.txt" },
    safe: true,
  },
  { note: "send a bad request", input: { skill: "pdf", resource: "../../etc/passwd" }, safe: true },
  {
    note: "the same non-standard read with both safety switches off",
    input: { skill: "pdf", resource: "canvas-fonts/NOTICE.txt" },
    safe: false,
  },
];

/**
 * Play the script against a skill folder.
 *
 * @param skillDir The Agent Skill folder (defaults to the bundled example).
 * @returns The transcript.
 */
export function scriptedTranscript(
  skillDir: string = fileURLToPath(new URL("./skills/pdf", import.meta.url)),
): string {
  const pdf = loadSkillFolder(skillDir);
  // What a runtime registers with its model (here in Anthropic's shape; see also toMcpTool, toOpenAITool).
  const tool = toAnthropicTool(skillToolDefinition([pdf]));
  const out = [
    `registered tool "${tool.name}" (${tool.description.split("\n").length} description lines)`,
  ];
  for (const [i, step] of STEPS.entries()) {
    const context: SkillToolContext = step.safe
      ? { skills: [pdf] }
      : { skills: [pdf], global_safety: false, skill_safety: { pdf: false } };
    const result = handleSkillTool(step.input, context);
    out.push(
      "",
      `### ${i + 1}. ${step.note}${
        step.safe ? "" : " (global_safety: false, skill_safety: false)"
      }`,
      `> skill ${JSON.stringify(step.input)}`,
      `< is_error: ${result.is_error}`,
      result.content,
    );
  }
  return out.join("\n") + "\n";
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(scriptedTranscript());
}
