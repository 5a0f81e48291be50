import { describe, expect, it } from "vitest";
import { parseArgs, parseDuration, UsageError, wholeSeconds } from "../../cli/args.ts";
import { parseExecArgs, skippedLine } from "../../cli/exec.ts";
import { shellQuote } from "../../cli/lease-command.ts";
import { parsePingKind } from "../../cli/ping-command.ts";

describe("parseDuration", () => {
  it.each([
    ["15m", 900], ["90s", 90], ["2h", 7200], ["1d", 86_400], ["90", 90], ["0", 0], ["2.5", 2.5], ["1h30m", 5400], ["1.5h", 5400], ["500ms", 0.5], [" 45s ", 45],
  ])("reads %s as %d seconds", (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each(["", "m", "15x", "-5", "1m-3s", "15 m", "1e3", "h1"])("refuses %j with an example of what works", (text) => {
    expect(() => parseDuration(text)).toThrow(/is not a duration \(write e\.g\. 90s, 15m/);
  });

  it("insists on whole seconds where the API does", () => {
    expect(wholeSeconds(900, "ttl")).toBe(900);
    expect(() => wholeSeconds(0.5, "ttl")).toThrow("--ttl must be a whole number of seconds, at least 1s");
    expect(() => wholeSeconds(0, "ttl")).toThrow(UsageError);
    expect(wholeSeconds(0, "min-hold", 0)).toBe(0);
  });
});

describe("parseArgs", () => {
  const spec = { ttl: "duration", job: "string", verbose: "boolean", code: "integer" } as const;

  it("reads --name value, --name=value, flags and positionals", () => {
    expect(parseArgs(["--ttl", "15m", "--job=billing", "--verbose", "a", "--code", "-3", "b"], spec)).toEqual({
      options: { ttl: 900, job: "billing", verbose: true, code: -3 }, positionals: ["a", "b"], rest: null,
    });
  });

  it("keeps everything after -- for the command, options included", () => {
    expect(parseArgs(["--job", "x", "--", "php", "--ttl", "-v"], spec).rest).toEqual(["php", "--ttl", "-v"]);
  });

  it("stops at the first positional when asked, so the command's own options are left alone", () => {
    expect(parseArgs(["--job", "x", "node", "-e", "1"], spec, { stopAtPositional: true })).toMatchObject({ options: { job: "x" }, rest: ["node", "-e", "1"] });
  });

  it.each([
    [["--nope"], "unknown option --nope"],
    [["-x"], "unknown option -x"],
    [["--ttl"], "--ttl needs a value"],
    [["--job="], "--job needs a value"],
    [["--ttl", "soon"], "--ttl: 'soon' is not a duration"],
    [["--code", "7.5"], "--code must be an integer (got '7.5')"],
    [["--verbose=yes"], "--verbose takes no value"],
  ])("refuses %j: %s", (argv, message) => {
    expect(() => parseArgs(argv, spec)).toThrow(UsageError);
    expect(() => parseArgs(argv, spec)).toThrow(message);
  });
});

describe("deadbolt exec arguments", () => {
  it("takes the defaults of a crontab line: skip when held, exit 0, fail closed", () => {
    const parsed = parseExecArgs(["--job", "billing-charge", "--ttl", "15m", "--", "php", "bin/console", "billing:charge-due"]);
    expect(parsed).toMatchObject({
      help: false,
      settings: { job: "billing-charge", ttlSeconds: 900, waitSeconds: 0, skippedExitCode: 0, quiet: false, onUnreachable: "skip", killOnLeaseLoss: false, command: ["php", "bin/console", "billing:charge-due"] },
    });
  });

  it.each([
    [["--job", "x"], "no command given"],
    [["--", "true"], "--job SLUG is required"],
    [["--job", "x", "--ping-key", "k", "--", "true"], "not both"],
    [["--ping-key", "k", "--ttl", "5m", "--", "true"], "--ttl applies to --job runs only"],
    [["--job", "x", "--ttl", "0.5", "--", "true"], "--ttl must be a whole number of seconds"],
    [["--job", "x", "--on-unreachable", "maybe", "--", "true"], "--on-unreachable must be skip or run (got 'maybe')"],
    [["--job", "x", "--skipped-exit-code", "300", "--", "true"], "--skipped-exit-code must be 0–255"],
    [["--job", "x", "--slot", "yesterday", "--", "true"], "--slot must be an ISO 8601 instant"],
  ])("refuses %j: %s", (argv, message) => {
    expect(() => parseExecArgs(argv)).toThrow(UsageError);
    expect(() => parseExecArgs(argv)).toThrow(message);
  });

  it("says in one line who holds the lease, until when, and for which slot", () => {
    const now = new Date("2026-01-05T02:05:00Z");
    const held = { claimed: false, reason: "lease_held", message: "", runId: "r2", slot: "2026-01-05T02:00:00.000Z", holder: "web-1", expiresAt: "2026-01-05T02:15:00.000Z" } as const;
    expect(skippedLine("billing-charge", held, 0, now)).toBe("billing-charge not run: lease held by web-1 until 02:15:00Z (slot 2026-01-05T02:00:00Z)");
    expect(skippedLine("billing-charge", { ...held, expiresAt: "2026-01-06T00:15:00.000Z" }, 30, now)).toBe(
      "billing-charge not run: lease held by web-1 until 2026-01-06T00:15:00Z (slot 2026-01-05T02:00:00Z, after waiting 30s)",
    );
    const done = { claimed: false, reason: "slot_done", message: "", runId: "r3", slot: "2026-01-05T02:00:00.000Z", doneBy: { runId: "r1", holder: "web-2", outcome: "succeeded" } } as const;
    expect(skippedLine("billing-charge", done, 0, now)).toBe("billing-charge not run: slot 2026-01-05T02:00:00Z already ran (run r1 on web-2, succeeded)");
  });
});

describe("small readers", () => {
  it("reads ping kinds and exit codes, and refuses the rest", () => {
    expect([undefined, "success", "start", "fail", "log", "0", "255"].map(parsePingKind)).toEqual(["success", "success", "start", "fail", "log", 0, 255]);
    expect(() => parsePingKind("256")).toThrow(UsageError);
    expect(() => parsePingKind("done")).toThrow("'done' is not a ping kind");
  });

  it("quotes only what the shell would misread", () => {
    expect(shellQuote("job:billing-charge")).toBe("job:billing-charge");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });
});
