import { decodeState, encodeState, type PersistedState, type StateStore } from "../../src/service/index.js";

/**
 * A state store in memory for unit tests on fake time. It keeps the encoded text, so every save and
 * load goes through the real codec and its validation, as with a file or a ConfigMap.
 */
export class MemoryStateStore implements StateStore {
  readonly where = "memory state";
  text: string | undefined;
  saves = 0;
  /** While set, every save fails with it and stores nothing (a full disk, a lost connection). */
  failure: Error | undefined;

  async load(): Promise<PersistedState | undefined> {
    return this.text === undefined ? undefined : decodeState(this.text, this.where);
  }

  async save(state: PersistedState): Promise<void> {
    if (this.failure) throw this.failure;
    this.text = encodeState(state);
    this.saves++;
  }
}
