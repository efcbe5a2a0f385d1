import { brandError } from "../core/index.js";

/** An option that fails validation; names the option. */
export class ValueError extends Error {
  constructor(
    readonly option: string,
    message: string,
  ) {
    super(`--${option}: ${message}`);
    this.name = "ValueError";
  }
  static {
    brandError(this, "ValueError");
  }
}
