// A real SMTP server in the test process (smtp-server), collecting what it receives.
// STARTTLS is disabled: the package's built-in certificate has expired (../shared/NOTES.md).
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  /** Envelope sender and recipients, as given in MAIL FROM / RCPT TO. */
  mailFrom: string;
  rcptTo: string[];
  /** Who logged in (AUTH), if anyone. */
  user: string | null;
  headers: Record<string, string>;
  subject: string;
  text: string;
  raw: string;
}

export interface TestSmtpServer {
  /** smtp://user:pass@127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  messages: ReceivedMail[];
  /** Refuse the next N messages with a 451 (transient) reply. */
  refuseNext(n: number): void;
  close(): Promise<void>;
}

function decodeQuotedPrintable(body: string): string {
  const bytes = Buffer.from(body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), "latin1");
  return bytes.toString("utf8");
}

/** RFC 2047 encoded words ("=?UTF-8?Q?=5BDeadbolt=5D_…?="), as nodemailer writes some subjects. */
function decodeHeader(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, "$1$2") // whitespace between two encoded words is not part of the text
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, kind: string, data: string) =>
      kind.toUpperCase() === "B" ? Buffer.from(data, "base64").toString("utf8") : decodeQuotedPrintable(data.replace(/_/g, " ")),
    );
}

/** Just enough of RFC 5322 for our plain-text alerts: unfolded headers, a single-part body. */
export function parseMail(raw: string): { headers: Record<string, string>; text: string } {
  const split = raw.indexOf("\r\n\r\n");
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, " ");
  const headers: Record<string, string> = {};
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = decodeHeader(line.slice(colon + 1).trim());
  }
  let text = raw.slice(split + 4);
  const encoding = (headers["content-transfer-encoding"] ?? "").toLowerCase();
  if (encoding === "quoted-printable") text = decodeQuotedPrintable(text);
  else if (encoding === "base64") text = Buffer.from(text, "base64").toString("utf8");
  return { headers, text: text.replace(/\r\n/g, "\n") };
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  let refusals = 0;
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (refusals > 0) {
          refusals--;
          return callback(Object.assign(new Error("try again later"), { responseCode: 451 }));
        }
        const raw = Buffer.concat(chunks).toString("utf8");
        const { headers, text } = parseMail(raw);
        messages.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === "string" ? session.user : null,
          headers,
          subject: headers.subject ?? "",
          text,
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://alerts:secret@127.0.0.1:${port}`,
    messages,
    refuseNext: (n) => void (refusals = n),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
