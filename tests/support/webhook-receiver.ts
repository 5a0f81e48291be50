// A real HTTP endpoint in the test process, recording every request it gets. It can answer an
// error status N times before answering 200, or hang without answering (to test timeouts).
// It verifies signatures the way a customer's receiver would: its own HMAC code, not Deadbolt's.
import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, exactly as received (signatures cover these bytes). */
  body: string;
  /** The status this receiver answered, or null when it hung. */
  answered: number | null;
}

export interface WebhookReceiver {
  url: string;
  requests: ReceivedRequest[];
  /** Answer `status` to the next `n` requests, then 200 again. */
  failNext(n: number, status?: number): void;
  /** Stop answering (requests hang until the client gives up) or answer again. */
  hang(on: boolean): void;
  close(): Promise<void>;
}

/** Checks X-Deadbolt-Signature as documented in lib/alerts/webhook.ts. */
export function signatureIsValid(request: Pick<ReceivedRequest, "headers" | "body">, secret: string, toleranceSeconds = 300, nowSeconds = Date.now() / 1000): boolean {
  const timestamp = String(request.headers["x-deadbolt-timestamp"] ?? "");
  const signature = String(request.headers["x-deadbolt-signature"] ?? "");
  if (!/^\d+$/.test(timestamp) || Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false;
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(`${timestamp}.${request.body}`).digest("hex")}`);
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  let failures = 0;
  let failStatus = 500;
  let hanging = false;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const record: ReceivedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), answered: null };
      requests.push(record);
      if (hanging) return;
      record.answered = failures > 0 ? (failures--, failStatus) : 200;
      res.writeHead(record.answered, { "content-type": "text/plain" });
      res.end(record.answered === 200 ? "ok" : "nope");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/deadbolt`,
    requests,
    failNext(n, status = 500) {
      failures = n;
      failStatus = status;
    },
    hang(on) {
      hanging = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
