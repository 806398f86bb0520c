/**
 * The server's reads of published files (`resources/read`), on the core's
 * read mechanics: {@linkcode readWholeResource} opens the file once through
 * its verified handle, asks the gate about the class of the real path found
 * at the open, refuses a file whose size is no longer the published one
 * before reading a byte, and reads at most that size. Also the two cheap
 * looks the publisher takes before serving a file: whether its answer fits
 * in one message of the transport, and whether a kept file still has its
 * published size.
 *
 * Folder `lib/mcp/` — skills over MCP behind `lib/mcp.ts`: serve, consume, watch, HTTP, remote trust.
 *
 * @module
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { ResourceFile } from "../core/resources/bundle.ts";
import type { SafetyFlags } from "../core/resources/gate.ts";
import { readWholeResource } from "../core/resources/read.ts";
import type { ResourceClassMap } from "../core/resources/resource_path.ts";

/** A published file and the switches its skill is served under. */
export interface Published {
  readonly file: ResourceFile;
  readonly flags: SafetyFlags;
  /** The host's extra standard folders, for the class recomputed at read time. */
  readonly classes?: ResourceClassMap;
  /** SKILL.md's bytes as loaded: served as they were read, so a kept last good version stays whole. */
  readonly bytes?: Uint8Array;
}

/** Room for the JSON-RPC envelope around a file's content in one message. */
const ENVELOPE_BYTES = 4096;

/**
 * A published file's bytes through one verified handle (SPEC §4: opened once,
 * regular file, real path inside the skill after the open), refused when the
 * class of the real path found at read time is one the gate closes. At most
 * the published size is read: a file whose size is no longer the published
 * one is `RESOURCE_CHANGED` before any byte is read, so a file that grew
 * never costs more than its published size.
 *
 * @param published The file, its skill's switches and the host's extra standard folders.
 * @returns Its published size of bytes.
 * @throws {ExecutionError} When the gate refuses the class of the opened file.
 * @throws {ResourceReadError} When it cannot be opened, or has changed (`RESOURCE_CHANGED`).
 */
export function readPublished({ file, flags, classes }: Published): Uint8Array {
  return readWholeResource(file, flags, classes);
}

/**
 * Whether reading the file fits in one message of `max` bytes: its content as
 * JSON text (at most 6 bytes a byte) or base64 (4 per 3), plus the envelope.
 * Only a file that might not fit is read to tell exactly.
 *
 * @param entry The file to publish (SKILL.md with its bytes as loaded).
 * @param max The transport's largest message, in bytes.
 * @returns Whether its `resources/read` answer fits.
 * @throws {ExecutionError} As {@linkcode readPublished}, when it has to be read.
 * @throws {ResourceReadError} As {@linkcode readPublished}, when it has to be read.
 */
export function fitsOneMessage(entry: Published, max: number): boolean {
  if (entry.file.size * 6 + ENVELOPE_BYTES <= max) return true;
  if (Math.ceil(entry.file.size / 3) * 4 + ENVELOPE_BYTES > max) {
    if (entry.file.size + ENVELOPE_BYTES > max) return false;
  }
  const bytes = entry.bytes ?? readPublished(entry);
  let text: string | undefined;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    text = undefined;
  }
  const encoded = text === undefined
    ? Math.ceil(bytes.length / 3) * 4
    : new TextEncoder().encode(JSON.stringify(text)).length;
  return encoded + ENVELOPE_BYTES <= max;
}

/**
 * Whether a published file still has its published size (a cheap look: one `stat`).
 *
 * @param location The skill's folder.
 * @param published The published file.
 * @returns Whether it is there with its published size.
 */
export function unchanged(location: string, { file }: Published): boolean {
  try {
    return statSync(join(location, file.path)).size === file.size;
  } catch {
    return false;
  }
}
