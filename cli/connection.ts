// Where Deadbolt is and how to talk to it: --url / --api-key, else DEADBOLT_URL / DEADBOLT_API_KEY.
import { DeadboltError, Deadbolt, type DeadboltOptions } from "./sdk.ts";
import { str, type OptionSpec, type ParsedArgs } from "./args.ts";
import { say } from "./exit-codes.ts";

export const CONNECTION_OPTIONS: OptionSpec = { url: "string", "api-key": "string", "retry-for": "duration", help: "boolean" };

export const CONNECTION_HELP = `Connection:
  --url URL            Deadbolt's address (env DEADBOLT_URL, default http://localhost:3000)
  --api-key KEY        a read-write API key (env DEADBOLT_API_KEY)
  --retry-for D        keep retrying when Deadbolt is unreachable (refused, timeouts, 5xx) for D (default 30s; 0: once)`;

export function clientFrom(options: ParsedArgs["options"], extra: DeadboltOptions & { needApiKey?: boolean } = {}): Deadbolt {
  const { needApiKey = true, ...rest } = extra;
  const retryForSeconds = typeof options["retry-for"] === "number" ? options["retry-for"] : 30;
  const client: Deadbolt = new Deadbolt({
    url: str(options, "url"),
    apiKey: str(options, "api-key"),
    retryForMs: retryForSeconds * 1000,
    onWarning: (message) => say(message),
    // Said once per request, at its first failure: a slow start is explained, crontab mail stays short.
    onRetry: (failure, attempt) => {
      if (attempt === 1) say(`Deadbolt at ${client.url} is not answering (${failure}); retrying for up to ${retryForSeconds}s`);
    },
    ...rest,
  });
  if (needApiKey && !client.hasApiKey) throw new DeadboltError("no API key: set DEADBOLT_API_KEY or pass --api-key (create one with 'deadbolt keys create --name NAME')", 0, "no_api_key", undefined);
  return client;
}
