/**
 * Server-provided text (an image name, a registry's error, another client's pause reason) is printed to a terminal,
 * which would act on escape sequences in it: retitle the window, move the cursor, rewrite what was shown. Every such
 * string goes through {@link terminalSafe} before it is printed.
 */

/** C0 controls, DEL and C1 controls; `\n` and `\t` are kept where `keepLayout` says they are meaningful. */
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
const CONTROLS_AND_LAYOUT = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * `text` with every control character written as its `\uXXXX` escape (visible, and valid inside a JSON string), so
 * nothing printed can steer the terminal. `keepLayout` keeps newlines and tabs (multi-line output, pretty JSON).
 */
export function terminalSafe(text: string, keepLayout = false): string {
  return text.replace(keepLayout ? CONTROLS : CONTROLS_AND_LAYOUT, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
