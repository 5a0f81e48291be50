import { describe, expect, it } from "vitest";
import { OUTPUT_TAIL_BYTES, TailBuffer } from "../../cli/tail-buffer.ts";
import { backoffMs, heartbeatIntervalMs } from "../../cli/sdk.ts";

describe("TailBuffer", () => {
  it("keeps everything while under its limit", () => {
    const tail = new TailBuffer(10);
    tail.push("abc");
    tail.push(Buffer.from("def"));
    expect(tail.toString()).toBe("abcdef");
    expect(tail.byteLength).toBe(6);
  });

  it("keeps the last N bytes across chunks, dropping whole and partial chunks from the front", () => {
    const tail = new TailBuffer(10);
    for (const chunk of ["0123", "4567", "89ab", "cdef"]) tail.push(chunk);
    expect(tail.toString()).toBe("6789abcdef");
    expect(tail.byteLength).toBe(10);
    expect(tail.totalBytes).toBe(16);
  });

  it("keeps the end of one chunk larger than the limit", () => {
    const tail = new TailBuffer(5);
    tail.push("x".repeat(1000) + "12345");
    expect(tail.toString()).toBe("12345");
  });

  it("never starts its text inside a multi-byte character", () => {
    const tail = new TailBuffer(5);
    tail.push("ééé"); // 6 bytes: the first é is cut in half
    expect(tail.toBuffer()).toHaveLength(5);
    expect(tail.toString()).toBe("éé");
  });

  it("defaults to the 100 KB the server keeps", () => {
    const tail = new TailBuffer();
    const line = "0123456789abcdef\n";
    for (let i = 0; i < 10_000; i++) tail.push(line);
    expect(tail.maxBytes).toBe(OUTPUT_TAIL_BYTES);
    expect(tail.byteLength).toBe(100 * 1024);
    expect(tail.toString().endsWith(line.repeat(3))).toBe(true);
  });
});

describe("retry and heartbeat pacing", () => {
  it("backs off 0.5, 1, 2, 4, 4 s, give or take a fifth", () => {
    expect([1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, () => 0.5))).toEqual([500, 1000, 2000, 4000, 4000, 4000]);
    expect(backoffMs(1, () => 0)).toBe(400);
    expect(backoffMs(4, () => 1)).toBe(4800);
  });

  it("renews at a third of the TTL, and at most twice a second", () => {
    expect(heartbeatIntervalMs(900_000)).toBe(300_000);
    expect(heartbeatIntervalMs(3_000)).toBe(1_000);
    expect(Math.round(heartbeatIntervalMs(2_000))).toBe(667);
    expect(heartbeatIntervalMs(1_200)).toBe(500);
    expect(heartbeatIntervalMs(1_000)).toBe(500);
  });
});
