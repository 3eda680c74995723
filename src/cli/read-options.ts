import { COMMAND_OPTIONS, type CommandName, OPTIONS, type OptionName, type OptionSpec } from "./options.js";

// How the option table (options.ts) becomes parseArgs' configuration and each command's checked values.

type Table = typeof OPTIONS;
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;
type KeyOf<N extends OptionName> = Table[N] extends { key: infer K extends string } ? K : Camel<N>;
type ValueOf<N extends OptionName> = Table[N] extends { read: (...args: never[]) => infer R }
  ? R
  : Table[N] extends { value: string }
    ? string | undefined
    : boolean;

/** The checked values of a command's options, by key: what {@link readOptions} returns. */
export type CommandValues<C extends CommandName> = {
  [N in (typeof COMMAND_OPTIONS)[C][number] as KeyOf<N>]: ValueOf<N>;
};

/** parseArgs' values: a string, `true`, or every string of a repeatable option. */
export type ParsedValues = Record<string, string | boolean | string[] | undefined>;

/** The `parseArgs` configuration for one command. */
export function parseArgsOptions(
  command: CommandName,
): Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> {
  const out: Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }> = {};
  for (const name of COMMAND_OPTIONS[command]) {
    const spec: OptionSpec = OPTIONS[name];
    out[name] = {
      type: spec.value === undefined ? "boolean" : "string",
      ...(spec.short ? { short: spec.short } : {}),
      ...(spec.multiple ? { multiple: true } : {}),
    };
  }
  return out;
}

/** Every option `command` takes, read and checked by its table entry. @throws UsageError for a bad value */
export function readOptions<C extends CommandName>(
  command: C,
  values: ParsedValues,
  env: Readonly<Record<string, string | undefined>>,
): CommandValues<C> {
  const out: Record<string, unknown> = {};
  for (const name of COMMAND_OPTIONS[command]) {
    const spec: OptionSpec = OPTIONS[name];
    const given = values[name];
    const fromEnv = spec.env === undefined ? undefined : env[spec.env]?.trim() || undefined;
    const raw = spec.multiple
      ? [given ?? []].flat()
      : spec.value === undefined
        ? given === true
        : ([given].flat().at(-1) ?? fromEnv);
    const key = spec.key ?? name.replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
    out[key] = spec.read ? spec.read(raw as never, `--${name}`, command, given === undefined) : raw;
  }
  return out as CommandValues<C>;
}
