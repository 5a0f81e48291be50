import { randomFillSync } from "node:crypto";

// Random bytes are taken from a pool refilled 4 KiB at a time: one call into the CSPRNG per ~170
// ids instead of one per id (the lease and ping paths make two or three ids a request).
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomBytes(size: number): Buffer {
  if (poolOffset + size > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + size));
  poolOffset += size;
  return bytes;
}

// UUIDv7: 48 bits of milliseconds, then randomness. Ids sort by creation time, so "newest first"
// and keyset pagination are plain index scans on the id.
let lastMs = 0;
let counter = 0;

export function newId(nowMs = Date.now()): string {
  const bytes = randomBytes(16);
  // Ids made in the same millisecond still sort in creation order: a 12-bit counter in rand_a.
  if (nowMs <= lastMs) {
    counter = (counter + 1) & 0xfff;
    if (counter === 0) lastMs += 1;
    nowMs = lastMs;
  } else {
    lastMs = nowMs;
    counter = 0;
  }
  bytes.writeUIntBE(nowMs, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A secret for URLs and tokens: 128 bits of randomness, URL-safe. */
export function newSecret(bytes = 16): string {
  return randomBytes(bytes).toString("base64url");
}
