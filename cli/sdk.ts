// The Deadbolt TypeScript SDK. It speaks HTTP only (fetch), has no dependencies but Node's own, and
// imports nothing else of this repository: copy this one file into a service if you like.
//
//   const deadbolt = new Deadbolt({ url: "https://deadbolt.example", apiKey: process.env.DEADBOLT_API_KEY });
//   await deadbolt.withLease("reports:nightly", { ttlSeconds: 60 }, async ({ fencingToken, signal }) => { … });
//   await deadbolt.runJob("billing-charge", async ({ idempotencyKey, signal }) => { … });
//
// Network errors, timeouts and 5xx answers are retried with backoff (0.5, 1, 2, 4, 4… s) for
// `retryForMs`; every other answer is final. Refusals the caller must handle (a held lease, a done
// slot, a lost lease) are results, not exceptions.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

export interface DeadboltOptions {
  /** Default: env DEADBOLT_URL, else http://localhost:3000. */
  url?: string;
  /** Default: env DEADBOLT_API_KEY. Ping calls need none. */
  apiKey?: string;
  /** Who holds leases and runs (shown in the ledger). Default: the host name. */
  holder?: string;
  /** How long to keep retrying network errors and 5xx answers. Default 30 s. */
  retryForMs?: number;
  /** Per attempt. Default 10 s (plus waitSeconds for a waiting acquire). */
  requestTimeoutMs?: number;
  /** Heartbeat trouble and failed releases; default console.warn. */
  onWarning?: (message: string) => void;
  /** Called before each retry of a failed request (the CLI prints the first). */
  onRetry?: (failure: string, attempt: number, delayMs: number) => void;
  fetch?: typeof fetch;
}

/** An answer of the API that is neither success nor an expected refusal: 401, 403, 404, 422, … */
export class DeadboltError extends Error {
  constructor(message: string, readonly status: number, readonly code: string, readonly body: unknown) {
    super(message);
    this.name = "DeadboltError";
  }
}

/** Deadbolt could not be reached (connection refused, timeout, 5xx) within the retry budget. */
export class DeadboltUnreachableError extends Error {
  constructor(message: string, readonly attempts: number, readonly failure: string) {
    super(message);
    this.name = "DeadboltUnreachableError";
  }
}

/** The reason of the AbortSignal handed to `fn` when its lease is lost. */
export class LeaseLostError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LeaseLostError";
  }
}

export type AcquireResult =
  | { acquired: true; token: string; fencingToken: number; expiresAt: string; holder: string | null }
  | { acquired: false; holder: string | null; expiresAt: string };

export type ClaimResult =
  | {
      claimed: true; runId: string; leaseName: string; token: string; fencingToken: number; slot: string; idempotencyKey: string; expiresAt: string;
      /** The run's lease TTL, as the server applied it (asked for, or the job's default). */
      ttlSeconds: number;
    }
  | { claimed: false; reason: "lease_held"; message: string; runId: string; slot: string; holder: string | null; expiresAt: string }
  | { claimed: false; reason: "slot_done"; message: string; runId: string; slot: string; doneBy: { runId: string; holder: string | null; outcome: string } };

export type RenewResult = { ok: true; expiresAt: string } | { ok: false; message: string };

export interface FinishResult {
  outcome: "succeeded" | "failed";
  /** True when the run was recorded but its lease had expired or been taken over before the finish. */
  leaseLost: boolean;
  message?: string;
}

export type PingKind = "success" | "start" | "fail" | "log" | number;

export interface LeaseOptions {
  ttlSeconds: number;
  /** Wait up to this long for a held lease (server-side). Default 0: refuse at once, like GET_LOCK(name, 0). */
  waitSeconds?: number;
  /** Keep the lease unavailable this long after acquisition, even after release (the interval gate of seed 002). */
  minHoldSeconds?: number;
  holder?: string;
}

export interface HeldLease {
  name: string;
  token: string;
  fencingToken: number;
  /** Fires (reason: LeaseLostError) when a heartbeat learns the lease is lost, or cannot renew it before it expires. */
  signal: AbortSignal;
}

export type WithLeaseResult<T> =
  | { ran: true; result: T; fencingToken: number; leaseLost: boolean }
  | { ran: false; holder: string | null; expiresAt: string };

export interface RunJobOptions {
  holder?: string;
  /** Lease TTL for this run; default the job's leaseTtlSeconds. */
  ttlSeconds?: number;
  /** Claim this slot (ISO 8601 instant) instead of the one the server computes. */
  slot?: string;
  /** While the job's lease is held, wait up to this long for it before giving up. Default 0. */
  waitSeconds?: number;
  /** Stops such a wait early. */
  signal?: AbortSignal;
}

export interface ClaimedRun {
  runId: string;
  leaseName: string;
  fencingToken: number;
  /** The same for every claim of one slot: deduplicate side effects on it (seed 000: invoice per billing period). */
  idempotencyKey: string;
  slot: string;
  signal: AbortSignal;
}

export type RunJobResult<T> =
  | { ran: true; result: T; runId: string; leaseLost: boolean; recorded: boolean }
  | { ran: false; reason: "lease_held" | "slot_done"; message: string; slot: string; holder: string | null };

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

const RETRY_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const env = (name: string): string | undefined => (typeof process !== "undefined" ? process.env[name] : undefined) || undefined;

/** 0.5, 1, 2, 4, 4, … seconds, ±20 %: a fleet that lost Deadbolt at once does not come back at once. */
export function backoffMs(attempt: number, random = Math.random): number {
  const base = Math.min(4000, 500 * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** How often to renew a lease of this TTL: a third of it, so two heartbeats may fail before it expires
 * (a floor of 1 s would leave a 2 s TTL one late heartbeat from loss); never more often than 2/s. */
export function heartbeatIntervalMs(ttlMs: number): number {
  return Math.max(ttlMs / 3, Math.min(500, ttlMs / 2));
}

function describeFailure(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === "TimeoutError" || error.name === "AbortError") return "no answer in time";
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code) return cause.code === "ECONNREFUSED" ? "connection refused" : `${cause.code}${cause.message && !cause.message.includes(cause.code) ? ` ${cause.message}` : ""}`;
    if (cause?.message) return cause.message;
    return error.message;
  }
  return String(error);
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const errorOf = (body: any): { code?: string; message?: string } => (body && typeof body === "object" && body.error && typeof body.error === "object" ? body.error : {});
const seg = (s: string) => encodeURIComponent(s);

export class Deadbolt {
  readonly url: string;
  readonly holder: string;
  private readonly apiKey: string | undefined;
  private readonly retryForMs: number;
  private readonly requestTimeoutMs: number;
  private readonly warn: (message: string) => void;
  private readonly onRetry?: DeadboltOptions["onRetry"];
  private readonly fetchImpl: typeof fetch;

  constructor(options: DeadboltOptions = {}) {
    this.url = (options.url ?? env("DEADBOLT_URL") ?? "http://localhost:3000").replace(/\/+$/, "");
    this.apiKey = options.apiKey ?? env("DEADBOLT_API_KEY");
    this.holder = options.holder ?? hostname();
    this.retryForMs = options.retryForMs ?? 30_000;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.warn = options.onWarning ?? ((m) => console.warn(`deadbolt: ${m}`));
    this.onRetry = options.onRetry;
    this.fetchImpl = options.fetch ?? fetch;
  }

  get hasApiKey(): boolean {
    return Boolean(this.apiKey);
  }

  /** One request, retried on network errors and 5xx within the budget. 2xx and 4xx answers are returned. */
  private async request(
    method: string,
    path: string,
    opts: { json?: unknown; text?: string; auth?: boolean; retryForMs?: number; timeoutMs?: number } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (opts.auth !== false) {
      if (!this.apiKey) throw new DeadboltError("no API key: set DEADBOLT_API_KEY (or pass apiKey / --api-key)", 0, "no_api_key", undefined);
      headers.authorization = `Bearer ${this.apiKey}`;
    }
    let body: string | undefined;
    if (opts.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(opts.json);
    } else if (opts.text !== undefined) {
      headers["content-type"] = "text/plain; charset=utf-8";
      body = opts.text;
    }
    const budgetMs = opts.retryForMs ?? this.retryForMs;
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      let failure: string;
      try {
        const res = await this.fetchImpl(this.url + path, { method, headers, body, signal: AbortSignal.timeout(opts.timeoutMs ?? this.requestTimeoutMs) });
        const parsed = parseBody(await res.text());
        if (!RETRY_STATUSES.has(res.status)) return { status: res.status, body: parsed, headers: res.headers };
        failure = `HTTP ${res.status}${errorOf(parsed).message ? ` (${errorOf(parsed).message})` : ""}`;
      } catch (error) {
        failure = describeFailure(error);
      }
      const delayMs = backoffMs(attempt);
      const elapsedMs = Date.now() - started;
      if (elapsedMs + delayMs > budgetMs) {
        const tried = attempt === 1 ? "" : ` after ${attempt} attempts in ${(elapsedMs / 1000).toFixed(1)}s`;
        throw new DeadboltUnreachableError(`Deadbolt at ${this.url} is unreachable: ${failure}${tried}`, attempt, failure);
      }
      this.onRetry?.(failure, attempt, delayMs);
      await sleep(delayMs);
    }
  }

  /** The error for an answer we did not expect. */
  private unexpected(answer: Answer, what: string): DeadboltError {
    const { code, message } = errorOf(answer.body);
    if (code) return new DeadboltError(message ?? code, answer.status, code, answer.body);
    const text = typeof answer.body === "string" ? answer.body.replace(/\s+/g, " ").slice(0, 120) : "";
    return new DeadboltError(`${what}: unexpected HTTP ${answer.status} from ${this.url}${text ? ` (${text})` : ""} — is DEADBOLT_URL a Deadbolt server?`, answer.status, `http_${answer.status}`, answer.body);
  }

  // ---- leases --------------------------------------------------------------------------------

  async acquireLease(name: string, opts: LeaseOptions): Promise<AcquireResult> {
    const waitSeconds = opts.waitSeconds ?? 0;
    const answer = await this.request("POST", `/api/v1/leases/${seg(name)}/acquire`, {
      json: { ttlSeconds: opts.ttlSeconds, holder: opts.holder ?? this.holder, waitSeconds, minHoldSeconds: opts.minHoldSeconds ?? 0 },
      timeoutMs: this.requestTimeoutMs + waitSeconds * 1000,
    });
    if (answer.status === 200) {
      const b = answer.body;
      return { acquired: true, token: b.token, fencingToken: b.fencingToken, expiresAt: b.expiresAt, holder: b.holder ?? null };
    }
    if (answer.status === 409 && errorOf(answer.body).code === "lease_held") return { acquired: false, holder: answer.body.holder ?? null, expiresAt: answer.body.expiresAt };
    throw this.unexpected(answer, `acquire ${name}`);
  }

  /** Extend the lease by ttlSeconds (default: its TTL) from now; `ok: false` when the token no longer holds it. */
  async renewLease(name: string, token: string, opts: { ttlSeconds?: number; retryForMs?: number; timeoutMs?: number } = {}): Promise<RenewResult> {
    const answer = await this.request("POST", `/api/v1/leases/${seg(name)}/renew`, {
      json: { token, ...(opts.ttlSeconds ? { ttlSeconds: opts.ttlSeconds } : {}) }, retryForMs: opts.retryForMs, timeoutMs: opts.timeoutMs,
    });
    if (answer.status === 200) return { ok: true, expiresAt: answer.body.expiresAt };
    if (answer.status === 409 || answer.status === 404) return { ok: false, message: errorOf(answer.body).message ?? "lease lost" };
    throw this.unexpected(answer, `renew ${name}`);
  }

  /** True when released; false when the token no longer held the lease (it expired or was taken over). */
  async releaseLease(name: string, token: string): Promise<boolean> {
    const answer = await this.request("POST", `/api/v1/leases/${seg(name)}/release`, { json: { token } });
    if (answer.status === 200) return true;
    if (answer.status === 409 || answer.status === 404) return false;
    throw this.unexpected(answer, `release ${name}`);
  }

  /** For the resource side: is this the current holder's fencing token? False when stale (or the lease is unknown). */
  async validateFence(name: string, fencingToken: number): Promise<boolean> {
    const answer = await this.request("POST", `/api/v1/leases/${seg(name)}/validate`, { json: { fencingToken } });
    if (answer.status === 200) return answer.body?.valid === true;
    if (answer.status === 409 || answer.status === 404) return false;
    throw this.unexpected(answer, `validate ${name}`);
  }

  /** Run `fn` only if the lease is free (seed 002's decorator): heartbeats while it runs, releases after. */
  async withLease<T>(name: string, opts: LeaseOptions, fn: (lease: HeldLease) => Promise<T> | T): Promise<WithLeaseResult<T>> {
    const got = await this.acquireLease(name, opts);
    if (!got.acquired) return { ran: false, holder: got.holder, expiresAt: got.expiresAt };
    const keeper = keepAlive({
      ttlMs: opts.ttlSeconds * 1000,
      what: `lease '${name}'`,
      renew: (timeoutMs) => this.renewLease(name, got.token, { ttlSeconds: opts.ttlSeconds, retryForMs: 0, timeoutMs }),
      warn: this.warn,
    });
    let result: T;
    try {
      result = await fn({ name, token: got.token, fencingToken: got.fencingToken, signal: keeper.signal });
    } finally {
      keeper.stop();
      if (!keeper.signal.aborted) {
        try {
          if (!(await this.releaseLease(name, got.token))) keeper.markLost("the lease was no longer held at release");
        } catch (error) {
          // The lease then simply expires at its TTL: nothing runs twice, the next run may start later.
          this.warn(`could not release lease '${name}' (${(error as Error).message}); it expires at its TTL`);
        }
      }
    }
    return { ran: true, result, fencingToken: got.fencingToken, leaseLost: keeper.signal.aborted };
  }

  // ---- runs ----------------------------------------------------------------------------------

  /** Claim a run of a job: its lease and its slot in one step. Refusals are recorded by the server too. */
  async claimRun(slug: string, opts: RunJobOptions = {}): Promise<ClaimResult> {
    const answer = await this.request("POST", `/api/v1/jobs/${seg(slug)}/runs`, {
      // One requestId for all retries of this claim: the server answers a retry of a recorded claim
      // with the same run instead of refusing it as "lease held" by itself.
      json: { holder: opts.holder ?? this.holder, requestId: randomUUID(), ...(opts.ttlSeconds ? { ttlSeconds: opts.ttlSeconds } : {}), ...(opts.slot ? { slot: opts.slot } : {}) },
    });
    const b = answer.body;
    if (answer.status === 201) {
      return {
        claimed: true, runId: b.runId, leaseName: b.leaseName, token: b.token, fencingToken: b.fencingToken, slot: b.slot, idempotencyKey: b.idempotencyKey,
        expiresAt: b.expiresAt, ttlSeconds: b.ttlSeconds,
      };
    }
    const { code, message = "" } = errorOf(b);
    if (answer.status === 409 && code === "lease_held") return { claimed: false, reason: "lease_held", message, runId: b.runId, slot: b.slot, holder: b.holder ?? null, expiresAt: b.expiresAt };
    if (answer.status === 409 && code === "slot_done") return { claimed: false, reason: "slot_done", message, runId: b.runId, slot: b.slot, doneBy: b.doneBy };
    throw this.unexpected(answer, `claim a run of ${slug}`);
  }

  /** Claim, and while the job's lease is held, wait for it (up to waitSeconds) and claim again.
   * Waiting polls the lease's state (a read, not recorded) rather than claiming over and over: only
   * the first and the last refusal are in the ledger. */
  async claimRunWaiting(slug: string, opts: RunJobOptions = {}): Promise<ClaimResult> {
    const deadline = Date.now() + (opts.waitSeconds ?? 0) * 1000;
    let claim = await this.claimRun(slug, opts);
    let leaseName: string | null = null;
    while (!claim.claimed && claim.reason === "lease_held" && Date.now() < deadline && !opts.signal?.aborted) {
      leaseName ??= await this.jobLeaseName(slug);
      for (;;) {
        const leftMs = deadline - Date.now();
        if (leftMs <= 0 || opts.signal?.aborted) break;
        await sleep(Math.min(500, leftMs));
        const lease = await this.request("GET", `/api/v1/leases/${seg(leaseName)}`);
        if (lease.status !== 200 || lease.body?.state !== "held") break;
      }
      claim = await this.claimRun(slug, opts);
    }
    return claim;
  }

  private async jobLeaseName(slug: string): Promise<string> {
    const answer = await this.request("GET", `/api/v1/jobs/${seg(slug)}`);
    if (answer.status !== 200) throw this.unexpected(answer, `read job ${slug}`);
    return answer.body.leaseName;
  }

  /** Renew a run's lease; `ok: false` when it was lost (expired, taken over, or the run was closed). */
  async heartbeatRun(runId: string, opts: { ttlSeconds?: number; retryForMs?: number; timeoutMs?: number } = {}): Promise<RenewResult> {
    const answer = await this.request("POST", `/api/v1/runs/${seg(runId)}/heartbeat`, {
      json: opts.ttlSeconds ? { ttlSeconds: opts.ttlSeconds } : {}, retryForMs: opts.retryForMs, timeoutMs: opts.timeoutMs,
    });
    if (answer.status === 200) return { ok: true, expiresAt: answer.body.expiresAt };
    if (answer.status === 409) return { ok: false, message: errorOf(answer.body).message ?? "lease lost" };
    throw this.unexpected(answer, `heartbeat run ${runId}`);
  }

  /** Record the outcome and release the lease. Safe to retry: the server answers a repeated finish the same. */
  async finishRun(runId: string, input: { exitCode: number; output?: string }): Promise<FinishResult> {
    const answer = await this.request("POST", `/api/v1/runs/${seg(runId)}/finish`, { json: { exitCode: input.exitCode, ...(input.output ? { output: input.output } : {}) } });
    const b = answer.body;
    if (answer.status === 200) return { outcome: b.outcome, leaseLost: Boolean(b.leaseLost) };
    if (answer.status === 409 && errorOf(b).code === "lease_lost") return { outcome: b.run?.outcome ?? (input.exitCode === 0 ? "succeeded" : "failed"), leaseLost: true, message: errorOf(b).message };
    throw this.unexpected(answer, `finish run ${runId}`);
  }

  /** Claim a run of `slug`, run `fn` with heartbeats, finish with exit code 0, or 1 and the error when it
   * throws (the error is rethrown). Refused claims (lease held, slot done) return `ran: false`. */
  async runJob<T>(slug: string, fn: (run: ClaimedRun) => Promise<T> | T, opts: RunJobOptions = {}): Promise<RunJobResult<T>> {
    const claim = await this.claimRunWaiting(slug, opts);
    if (!claim.claimed) {
      return { ran: false, reason: claim.reason, message: claim.message, slot: claim.slot, holder: claim.reason === "lease_held" ? claim.holder : claim.doneBy.holder };
    }
    const keeper = keepAlive({
      ttlMs: claim.ttlSeconds * 1000,
      what: `run ${claim.runId} of ${slug}`,
      renew: (timeoutMs) => this.heartbeatRun(claim.runId, { ttlSeconds: opts.ttlSeconds, retryForMs: 0, timeoutMs }),
      warn: this.warn,
    });
    const finish = async (exitCode: number, output?: string) => {
      keeper.stop();
      try {
        const finished = await this.finishRun(claim.runId, { exitCode, output });
        if (finished.leaseLost) keeper.markLost(finished.message ?? "lease lost before the finish");
        return true;
      } catch (error) {
        this.warn(`could not record the finish of run ${claim.runId} (${(error as Error).message})`);
        return false;
      }
    };
    let result: T;
    try {
      result = await fn({ runId: claim.runId, leaseName: claim.leaseName, fencingToken: claim.fencingToken, idempotencyKey: claim.idempotencyKey, slot: claim.slot, signal: keeper.signal });
    } catch (error) {
      await finish(1, error instanceof Error ? (error.stack ?? error.message) : String(error));
      throw error;
    }
    const recorded = await finish(0);
    return { ran: true, result, runId: claim.runId, leaseLost: keeper.signal.aborted, recorded };
  }

  // ---- pings ---------------------------------------------------------------------------------

  /** A ping URL call (no API key): start, success, fail, log, or an exit code; `body` is kept as output. */
  async ping(pingKey: string, kind: PingKind = "success", opts: { rid?: string; body?: string } = {}): Promise<void> {
    const suffix = kind === "success" ? "" : `/${kind}`;
    const query = opts.rid ? `?rid=${seg(opts.rid)}` : "";
    const answer = await this.request("POST", `/ping/${seg(pingKey)}${suffix}${query}`, { auth: false, text: opts.body ?? "" });
    if (answer.status === 200) return;
    throw this.unexpected(answer, "ping");
  }
}


export interface KeepAlive {
  signal: AbortSignal;
  stop(): void;
  markLost(message: string): void;
}

/** Heartbeats for a held lease: renew every heartbeatIntervalMs(ttl); abort the signal when a renewal
 * is refused, or when none succeeded before the lease would expire (then another holder may have it). */
export function keepAlive(opts: {
  ttlMs: number;
  what: string;
  renew: (timeoutMs: number) => Promise<RenewResult>;
  warn: (message: string) => void;
  onLost?: (error: LeaseLostError) => void;
}): KeepAlive {
  const controller = new AbortController();
  const intervalMs = heartbeatIntervalMs(opts.ttlMs);
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Our clock's conservative view of the expiry: from when the last successful renewal was sent.
  let expiresAtMs = Date.now() + opts.ttlMs;
  let failures = 0;

  const markLost = (message: string) => {
    if (controller.signal.aborted) return;
    const error = new LeaseLostError(`${opts.what}: ${message}`);
    controller.abort(error);
    opts.onLost?.(error);
  };
  const schedule = (ms: number) => {
    if (!stopped) timer = setTimeout(beat, Math.max(0, ms));
  };
  async function beat() {
    const sentAt = Date.now();
    try {
      const renewed = await opts.renew(Math.max(500, Math.min(10_000, expiresAtMs - sentAt)));
      if (stopped) return;
      if (!renewed.ok) return void ((stopped = true), markLost(renewed.message));
      failures = 0;
      expiresAtMs = sentAt + opts.ttlMs;
      schedule(intervalMs - (Date.now() - sentAt));
    } catch (error) {
      if (stopped) return;
      failures++;
      const leftMs = expiresAtMs - Date.now();
      if (leftMs <= 0) return void ((stopped = true), markLost(`could not renew before it expired (${(error as Error).message})`));
      if (failures === 1) opts.warn(`heartbeat of ${opts.what} failed (${(error as Error).message}); retrying`);
      schedule(Math.min(backoffMs(failures), leftMs));
    }
  }
  schedule(intervalMs);
  return {
    signal: controller.signal,
    markLost,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

// Module functions on a client configured from the environment (DEADBOLT_URL, DEADBOLT_API_KEY), read
// at each call: a client is only its settings.
const client = () => new Deadbolt();

export const withLease = <T>(name: string, opts: LeaseOptions, fn: (lease: HeldLease) => Promise<T> | T) => client().withLease(name, opts, fn);
export const runJob = <T>(slug: string, fn: (run: ClaimedRun) => Promise<T> | T, opts?: RunJobOptions) => client().runJob(slug, fn, opts);
export const validateFence = (name: string, fencingToken: number) => client().validateFence(name, fencingToken);
