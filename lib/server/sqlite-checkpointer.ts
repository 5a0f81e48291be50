// WAL checkpoints off the request path. SQLite's automatic checkpoint runs inside the COMMIT that
// crosses the threshold, on the event loop, and costs milliseconds (it copies pages and fsyncs the
// database file): measured, ~2 ms per COMMIT on average under ping load. A worker thread with its own
// connection runs PASSIVE checkpoints instead, which never block the writer; the main connection
// keeps a high automatic threshold only as a fallback.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

const WORKER = `
const { workerData, parentPort } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 5000 });
const timer = setInterval(() => {
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch (error) { /* busy: the next round catches up */ }
}, workerData.everyMs);
parentPort.on("message", () => { clearInterval(timer); db.close(); parentPort.close(); });
`;

export function startCheckpointer(file: string, everyMs = 250): () => Promise<void> {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(WORKER, { eval: true, workerData: { file, driver, everyMs } });
  worker.unref();
  worker.on("error", (error) => console.error("deadbolt: SQLite checkpointer stopped:", error));
  return async () => {
    const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
    worker.postMessage("stop");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 1000))]);
    await worker.terminate();
  };
}
