import { hasBrand } from "../payload/update-error.js";

const VALUE_ERROR = Symbol.for("syncworker.ValueError");

/** An option that fails validation; names the option. */
export class ValueError extends Error {
  readonly [VALUE_ERROR] = true;
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(`--${option}: ${message}`);
    this.name = "ValueError";
  }
  static override [Symbol.hasInstance](value: unknown): value is ValueError {
    return hasBrand(value, VALUE_ERROR);
  }
}
