// Command-line parsing for `deadbolt`: long options (`--ttl 15m`, `--ttl=15m`), `--` to end them, and
// durations written as people write them. Pure: no process, no I/O.

/** A mistake in how the command was called: printed with a pointer to --help, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export type OptionKind = "string" | "boolean" | "duration" | "integer";
export type OptionSpec = Record<string, OptionKind>;
export type OptionValue = string | boolean | number;

export interface ParsedArgs {
  options: Record<string, OptionValue>;
  positionals: string[];
  /** The words after `--` (or, with stopAtPositional, from the first positional on); null when none. */
  rest: string[] | null;
}

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400 };

/** "90s", "15m", "2h", "1d", "1h30m", "500ms", or plain seconds ("90", "2.5") → seconds. */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  if (/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(trimmed)) {
    let seconds = 0;
    for (const [, amount, unit] of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) seconds += Number(amount) * UNIT_SECONDS[unit];
    return Math.round(seconds * 1000) / 1000;
  }
  throw new UsageError(`'${text}' is not a duration (write e.g. 90s, 15m, 2h, 1d, or seconds)`);
}

/** A duration that must be whole seconds, at least `min` (a lease TTL: the API takes integers). */
export function wholeSeconds(seconds: number, option: string, min = 1): number {
  if (!Number.isInteger(seconds) || seconds < min) throw new UsageError(`--${option} must be a whole number of seconds, at least ${min}s (got ${seconds}s)`);
  return seconds;
}

export function parseArgs(argv: string[], spec: OptionSpec, opts: { stopAtPositional?: boolean } = {}): ParsedArgs {
  const options: Record<string, OptionValue> = {};
  const positionals: string[] = [];
  let rest: string[] | null = null;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === "--") {
      rest = argv.slice(i + 1);
      break;
    }
    if (word === "-h") {
      options.help = true;
      continue;
    }
    if (word.startsWith("--")) {
      const eq = word.indexOf("=");
      const name = eq === -1 ? word.slice(2) : word.slice(2, eq);
      const kind = spec[name];
      if (!kind) throw new UsageError(`unknown option --${name}`);
      if (kind === "boolean") {
        if (eq !== -1) throw new UsageError(`--${name} takes no value`);
        options[name] = true;
        continue;
      }
      let value: string;
      if (eq !== -1) value = word.slice(eq + 1);
      else if (i + 1 < argv.length) value = argv[++i];
      else throw new UsageError(`--${name} needs a value`);
      options[name] = convert(name, kind, value);
      continue;
    }
    if (word.startsWith("-") && word !== "-" && !/^-\d/.test(word)) throw new UsageError(`unknown option ${word}`);
    if (opts.stopAtPositional) {
      rest = argv.slice(i);
      break;
    }
    positionals.push(word);
  }
  return { options, positionals, rest };
}

function convert(name: string, kind: Exclude<OptionKind, "boolean">, value: string): OptionValue {
  if (kind === "string") {
    if (value === "") throw new UsageError(`--${name} needs a value`);
    return value;
  }
  if (kind === "integer") {
    if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} must be an integer (got '${value}')`);
    return Number(value);
  }
  try {
    return parseDuration(value);
  } catch (error) {
    throw new UsageError(`--${name}: ${(error as Error).message}`);
  }
}

/** Option value accessors that keep the call sites short and typed. */
export const str = (o: ParsedArgs["options"], name: string): string | undefined => (typeof o[name] === "string" ? (o[name] as string) : undefined);
export const num = (o: ParsedArgs["options"], name: string): number | undefined => (typeof o[name] === "number" ? (o[name] as number) : undefined);
export const flag = (o: ParsedArgs["options"], name: string): boolean => o[name] === true;
