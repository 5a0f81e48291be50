// Run outcomes and the small rules around them.
export const RUN_OUTCOMES = ["running", "succeeded", "failed", "abandoned", "skipped_lease_held", "skipped_slot_done"] as const;
export type RunOutcome = (typeof RUN_OUTCOMES)[number];

export const outcomeOfExit = (exitCode: number): "succeeded" | "failed" => (exitCode === 0 ? "succeeded" : "failed");

/** Output is kept as its last 100 KB: the end of a log says why it failed. */
export const OUTPUT_TAIL_BYTES = 100 * 1024;

/** The last `maxBytes` bytes of `text`, cut on a character boundary. */
export function outputTail(text: string | null | undefined, maxBytes = OUTPUT_TAIL_BYTES): string | null {
  if (text === null || text === undefined || text === "") return null;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let start = bytes.length - maxBytes;
  // Skip UTF-8 continuation bytes (10xxxxxx) so the tail starts on a whole character.
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start++;
  return bytes.subarray(start).toString("utf8");
}

/** The key a job's side effects should be deduplicated on: the same for every claim of one slot. */
export const idempotencyKeyOf = (slug: string, slot: Date) => `${slug}:${slot.toISOString()}`;
