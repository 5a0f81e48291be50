// Ready-to-paste ways to wire a job to Deadbolt: the CLI in a crontab, curl pings, PHP.
type Schedule = { kind: "cron"; cron: string; tz: string } | { kind: "every"; everySeconds: number };

/** The crontab time fields for a schedule, or null with a reason when crontab cannot say it. */
export function crontabTime(schedule: Schedule): { fields: string; note?: string } {
  if (schedule.kind === "cron") {
    const parts = schedule.cron.trim().split(/\s+/);
    if (parts.length === 6) {
      return parts[0] === "0" ? { fields: parts.slice(1).join(" ") } : { fields: parts.slice(1).join(" "), note: "crontab has no seconds field: use a systemd timer for sub-minute schedules" };
    }
    return { fields: schedule.cron.trim() };
  }
  const s = schedule.everySeconds;
  if (s === 60) return { fields: "* * * * *" };
  if (s % 60 === 0 && s < 3600 && 60 % (s / 60) === 0) return { fields: `*/${s / 60} * * * *` };
  if (s === 3600) return { fields: "0 * * * *" };
  if (s % 3600 === 0 && s < 86_400 && 24 % (s / 3600) === 0) return { fields: `0 */${s / 3600} * * *` };
  if (s === 86_400) return { fields: "0 0 * * *" };
  return { fields: "* * * * *", note: `every ${s} s is not a crontab schedule: run it from a systemd timer or a loop (Deadbolt's slots are UTC multiples of ${s} s)` };
}

export function jobSnippets(job: { slug: string; schedule: Schedule; pingUrl: string; leaseName: string; leaseTtlSeconds: number }, baseUrl: string) {
  const time = crontabTime(job.schedule);
  const tz = job.schedule.kind === "cron" && job.schedule.tz !== "UTC" ? job.schedule.tz : null;
  const crontab = [
    "# Every server may carry this line: Deadbolt lets one of them run each slot.",
    `DEADBOLT_URL=${baseUrl}`,
    "DEADBOLT_API_KEY=dbk_…   # a read-write key (Settings → API keys)",
    ...(tz ? [`CRON_TZ=${tz}   # cronie; elsewhere convert the times to the server's zone`] : []),
    ...(time.note ? [`# ${time.note}`] : []),
    `${time.fields} deadbolt exec --job ${job.slug} -- /usr/local/bin/your-command`,
  ].join("\n");
  const curl = [
    "# After the command: a success ping (a failure ping if it exits non-zero)",
    `/usr/local/bin/your-command && curl -fsS -m 10 --retry 3 -o /dev/null ${job.pingUrl} \\`,
    `  || curl -fsS -m 10 --retry 3 -o /dev/null ${job.pingUrl}/fail`,
    "",
    "# With a start ping, the exit code and the output's tail:",
    `curl -fsS -m 10 -o /dev/null ${job.pingUrl}/start`,
    "out=$(/usr/local/bin/your-command 2>&1); code=$?",
    `curl -fsS -m 10 --retry 3 -o /dev/null --data-binary "$out" ${job.pingUrl}/$code`,
  ].join("\n");
  const php = [
    "<?php",
    "// Take the job's lease first: on every other server the claim is refused and the script exits.",
    `$api = '${baseUrl}/api/v1';`,
    "$key = getenv('DEADBOLT_API_KEY');",
    "function deadbolt(string $url, string $key, array $body): array {",
    "    $ctx = stream_context_create(['http' => ['method' => 'POST', 'ignore_errors' => true, 'timeout' => 10,",
    "        'header' => \"Authorization: Bearer $key\\r\\nContent-Type: application/json\\r\\n\", 'content' => json_encode($body)]]);",
    "    $response = file_get_contents($url, false, $ctx);",
    "    return [(int) explode(' ', $http_response_header[0])[1], json_decode($response, true)];",
    "}",
    `[$status, $run] = deadbolt("$api/jobs/${job.slug}/runs", $key, ['holder' => gethostname()]);`,
    "if ($status === 409) exit(0); // another server has this slot",
    "// $run['idempotencyKey'] is the same for every claim of this slot: use it for charges, emails…",
    `// Runs longer than the lease TTL (${job.leaseTtlSeconds} s) must POST $api/runs/{id}/heartbeat now and then.`,
    "$exitCode = run_the_job($run['idempotencyKey']);",
    "deadbolt(\"$api/runs/{$run['runId']}/finish\", $key, ['exitCode' => $exitCode]);",
  ].join("\n");
  return { crontab, curl, php };
}
