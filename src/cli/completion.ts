/**
 * `syncworker completion bash|zsh`: shell completion scripts generated from the commander program itself, so every
 * subcommand, flag and choice the CLI has is completed and none it lacks (commander has no completion of its own).
 * Values are completed by what a flag takes: files for `<file>`, `<path>` and payloads, directories for `<dir>`,
 * the choices of a flag with choices, nothing for free text (an address, a duration).
 */
import { Help, type Command, type Option } from "commander";

export const SHELLS = ["bash", "zsh"] as const;
export type Shell = (typeof SHELLS)[number];

/** What a flag's value (or a positional argument) is completed with. */
type ValueKind =
  | { readonly kind: "none" }
  | { readonly kind: "flag" }
  | { readonly kind: "file" }
  | { readonly kind: "dir" }
  | { readonly kind: "choices"; readonly words: readonly string[] };

interface FlagSpec {
  readonly names: readonly string[];
  readonly description: string;
  readonly value: ValueKind;
}

interface CommandSpec {
  readonly name: string;
  readonly description: string;
  readonly flags: readonly FlagSpec[];
  /** The first positional argument's values; `none` when the command takes none. */
  readonly argument: ValueKind;
}

/** How a placeholder such as `<file>` or `<dir|ref>` is completed. */
function placeholderKind(placeholder: string, choices: readonly string[] | undefined): ValueKind {
  if (choices) return { kind: "choices", words: choices };
  if (placeholder === "dir") return { kind: "dir" };
  if (/^(file|path|dir\|ref|image|reference)$/.test(placeholder)) return { kind: "file" };
  return { kind: "none" };
}

function flagSpec(option: Option): FlagSpec {
  const placeholder = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1];
  return {
    names: [option.short, option.long].filter((n): n is string => n !== undefined),
    description: option.description,
    value: placeholder === undefined ? { kind: "flag" } : placeholderKind(placeholder, option.argChoices),
  };
}

/** The subcommands of `program` with their flags, as its help shows them (hidden ones left out). */
export function commandSpecs(program: Command): CommandSpec[] {
  const help = new Help();
  return help.visibleCommands(program).map((command) => {
    const first = help.visibleArguments(command)[0];
    return {
      name: command.name(),
      description: command.description(),
      flags: help.visibleOptions(command).map(flagSpec),
      argument: first ? placeholderKind(first.name(), first.argChoices) : { kind: "none" },
    };
  });
}

/** The first clause of a description: a completion menu has one short line per entry. */
const brief = (description: string): string => description.split(/ \(|; /)[0] ?? "";

/** `text` inside single quotes in a shell script. */
const quoted = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

function bashValue(value: ValueKind): string {
  switch (value.kind) {
    case "file":
      return 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur"))';
    case "dir":
      return 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur"))';
    case "choices":
      return `COMPREPLY=($(compgen -W ${quoted(value.words.join(" "))} -- "$cur"))`;
    default:
      return "COMPREPLY=()";
  }
}

function bashScript(program: Command): string {
  const commands = commandSpecs(program);
  const topFlags = new Help().visibleOptions(program).flatMap((o) => flagSpec(o).names);
  const cases = commands.map((c) => {
    // One case per way of completing a value, listing every flag completed that way.
    const byAction = new Map<string, string[]>();
    for (const f of c.flags.filter((flag) => flag.value.kind !== "flag"))
      byAction.set(bashValue(f.value), [...(byAction.get(bashValue(f.value)) ?? []), ...f.names]);
    const flagCases = [...byAction].map(([action, names]) => `        ${names.join("|")}) ${action}; return ;;`);
    const words = c.flags.flatMap((f) => f.names).join(" ");
    const argument = c.argument.kind === "none" ? "" : `      if [[ "$cur" != -* ]]; then ${bashValue(c.argument)}; return; fi\n`;
    return [
      `    ${c.name})`,
      '      case "$prev" in',
      ...flagCases,
      "      esac",
      `${argument}      COMPREPLY=($(compgen -W ${quoted(words)} -- "$cur"))`,
      "      ;;",
    ].join("\n");
  });
  return `# bash completion for ${program.name()}: source <(${program.name()} completion bash)
_${program.name()}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" i
  # The subcommand is the first word that is no flag (the program's own flags take no value).
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ "\${COMP_WORDS[i]}" != -* ]]; then cmd="\${COMP_WORDS[i]}"; break; fi
  done
  case "$cmd" in
    "")
      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W ${quoted(topFlags.join(" "))} -- "$cur"))
      else COMPREPLY=($(compgen -W ${quoted(commands.map((c) => c.name).join(" "))} -- "$cur")); fi
      ;;
${cases.join("\n")}
  esac
}
complete -F _${program.name()} ${program.name()}
`;
}

/** Text inside `[…]` or after `:` in an `_arguments` spec, where brackets and colons are syntax. */
const zshText = (text: string): string => text.replace(/[\\[\]:]/g, (c) => `\\${c}`);

function zshAction(value: ValueKind, message: string): string {
  switch (value.kind) {
    case "file":
      return `:${message}:_files`;
    case "dir":
      return `:${message}:_files -/`;
    case "choices":
      return `:${message}:(${value.words.join(" ")})`;
    case "flag":
      return "";
    default:
      return `:${message}: `;
  }
}

function zshScript(program: Command): string {
  const commands = commandSpecs(program);
  const name = program.name();
  const described = commands.map((c) => `    ${quoted(`${c.name}:${brief(c.description)}`)}`);
  const cases = commands.map((c) => {
    const specs = c.flags.flatMap((f) =>
      f.names.map((n) => quoted(`${n}[${zshText(brief(f.description))}]${zshAction(f.value, zshText(n.replace(/^-+/, "")))}`)),
    );
    if (c.argument.kind !== "none") specs.push(quoted(`1${zshAction(c.argument, "argument")}`));
    return `    ${c.name})\n      _arguments -s \\\n        ${specs.join(" \\\n        ")}\n      ;;`;
  });
  return `#compdef ${name}
# zsh completion for ${name}: source <(${name} completion zsh) after compinit, or save as _${name} in a $fpath directory
_${name}() {
  local -a commands
  commands=(
${described.join("\n")}
  )
  if (( CURRENT == 2 )); then
    _describe -t commands '${name} command' commands
    return
  fi
  # From here on the subcommand is the command _arguments completes for.
  shift words
  (( CURRENT-- ))
  case "$words[1]" in
${cases.join("\n")}
  esac
}
if [[ "$funcstack[1]" = "_${name}" ]]; then _${name} "$@"; else compdef _${name} ${name}; fi
`;
}

/** The completion script of `program` for `shell`. */
export function completionScript(program: Command, shell: Shell): string {
  return shell === "bash" ? bashScript(program) : zshScript(program);
}
