/**
 * Commander options built from config's flag tables (src/config/flags.ts), which declare every flag of `serve` and
 * `render` and the registry flags once: here they only become commander's spelling.
 */
import { InvalidArgumentError, Option, type Command } from "commander";
import { REGISTRY_FLAGS, type Flag } from "../config/index.js";

/** A config parser as commander's: its refusal becomes a usage error naming the flag (exit 2). */
export function argParser<T>(parse: (text: string, previous: T | undefined) => T): (text: string, previous: T | undefined) => T {
  return (text, previous) => {
    try {
      return parse(text, previous);
    } catch (err) {
      throw new InvalidArgumentError(err instanceof Error ? err.message : String(err));
    }
  };
}

/** Adds a table's flags to `command`, in the table's order. */
export function addFlags(command: Command, table: Readonly<Record<string, Flag<unknown>>>): Command {
  for (const flag of Object.values(table)) {
    const option = new Option(flag.flags, flag.help);
    if (flag.parse) option.argParser(argParser(flag.parse.bind(flag)));
    // Commander holds the default to show it in --help; the compiler applies it (see givenOptions).
    if (flag.default !== undefined) option.default(flag.default, flag.shownDefault);
    if (flag.choices) option.choices(flag.choices);
    if (flag.required) option.makeOptionMandatory();
    command.addOption(option);
  }
  return command;
}

/** The registry flags of every command that reaches a registry: `serve`, and the client commands that pull or push themselves. */
export function withRegistryFlags(command: Command): Command {
  return addFlags(command, REGISTRY_FLAGS);
}

/** The options the user gave, without commander's copies of the defaults: the compiler applies those, once. */
export function givenOptions<O>(command: Command): O {
  const opts = command.opts();
  return Object.fromEntries(
    Object.keys(opts)
      .filter((key) => command.getOptionValueSource(key) !== "default")
      .map((key) => [key, opts[key]]),
  ) as O;
}
