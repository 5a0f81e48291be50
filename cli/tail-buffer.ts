// The last N bytes of a stream of chunks (a command's combined stdout and stderr): the end of a log
// says why it failed, and a run's output is stored as its last 100 KB anyway.
export const OUTPUT_TAIL_BYTES = 100 * 1024;

export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Every byte ever pushed, kept or not. */
  totalBytes = 0;

  constructor(readonly maxBytes = OUTPUT_TAIL_BYTES) {}

  push(chunk: Buffer | string): void {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    if (bytes.length === 0) return;
    this.totalBytes += bytes.length;
    this.chunks.push(bytes);
    this.size += bytes.length;
    while (this.size > this.maxBytes) {
      const excess = this.size - this.maxBytes;
      const first = this.chunks[0];
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        // A copy, so a huge chunk's memory is not kept alive by the small part we keep.
        this.chunks[0] = Buffer.from(first.subarray(excess));
        this.size -= excess;
      }
    }
  }

  get byteLength(): number {
    return this.size;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }

  /** The kept bytes as text, starting on a whole UTF-8 character. */
  toString(): string {
    const bytes = this.toBuffer();
    let start = 0;
    // Skip continuation bytes (10xxxxxx) left from a character cut at the front.
    while (start < bytes.length && start < 3 && (bytes[start] & 0xc0) === 0x80) start++;
    return bytes.subarray(start).toString("utf8");
  }
}
