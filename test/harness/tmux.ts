import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A command running in a detached tmux session: a real terminal whose screen can be read back. */
export interface Terminal {
  /** The screen as text, one line per row (`tmux capture-pane -p`). */
  capture(): Promise<string>;
  /** Captures until `predicate` holds for a screen, every 100 ms; throws with the last screen after `timeoutMs`. */
  waitFor(predicate: (screen: string) => boolean, timeoutMs: number): Promise<string>;
  /** Types `keys` as tmux send-keys takes them: literal text, or key names such as `Tab` and `Enter`. */
  send(...keys: string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts `argv` in a new tmux session of `width`×`height` (its own server, on a socket in a temporary directory
 * removed on close, so nothing else's tmux is touched). The pane stays open after the command ends, so its last
 * screen can still be read.
 */
export async function openTerminal(argv: readonly string[], width = 160, height = 30): Promise<Terminal> {
  const dir = await mkdtemp(join(tmpdir(), "syncworker-tmux-"));
  const tmux = (...args: string[]): Promise<{ stdout: string }> => run("tmux", ["-S", join(dir, "socket"), ...args]);
  const quoted = argv.map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  await tmux("new-session", "-d", "-s", "main", "-x", String(width), "-y", String(height), `${quoted}; sleep 600`);
  const capture = async (): Promise<string> => (await tmux("capture-pane", "-p", "-t", "main")).stdout;
  return {
    capture,
    async waitFor(predicate, timeoutMs) {
      let screen = "";
      for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
        screen = await capture();
        if (predicate(screen)) return screen;
      }
      throw new Error(`the terminal did not show what was expected within ${timeoutMs} ms; last screen:\n${screen}`);
    },
    send: async (...keys) => {
      await tmux("send-keys", "-t", "main", "--", ...keys);
    },
    close: async () => {
      await tmux("kill-server").catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
