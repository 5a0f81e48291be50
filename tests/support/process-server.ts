// Deadbolt as users run it: `server.ts` in its own OS process (what `npm start` runs), for tests
// that need the whole stack (Next.js mounted) or must kill the server.
import { spawn, type ChildProcess } from "node:child_process";

export interface ServerProcess {
  url: string;
  proc: ChildProcess;
  output(): string;
  /** SIGTERM (graceful) or SIGKILL; resolves with the exit code or signal. */
  stop(signal?: NodeJS.Signals): Promise<number | string | null>;
}

export async function spawnServer(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const proc = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    env: { ...(process.env as Record<string, string>), NODE_ENV: "production", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | string | null>((resolve) => proc.on("exit", (code, signal) => resolve(signal ?? code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    proc.stdout!.on("data", onData);
    proc.stderr!.on("data", onData);
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${output}`));
    });
  });
  return {
    url,
    proc,
    output: () => output,
    stop(signal = "SIGTERM") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      return exited;
    },
  };
}
