/**
 * What the update page (app.tsx) and the fleet page (fleet.tsx) show alike: the stream's state, the token form a
 * refusal brings up, the token kept for the tab, and the mounting of a page into its HTML.
 */
import { render, type ComponentChild } from "preact";
import { useState } from "preact/hooks";
import { span } from "./status.js";
import type { StreamState } from "./stream.js";

/** Where a page keeps the token it was given, for the tab (sessionStorage): both pages of a listener share it. */
const TOKEN_KEY = "syncworker.token";

/** The token this tab was given, and a setter that keeps a new one. */
export function useToken(): [string | undefined, (token: string) => void] {
  const [token, setToken] = useState<string | undefined>(() => sessionStorage.getItem(TOKEN_KEY) ?? undefined);
  return [
    token,
    (next) => {
      sessionStorage.setItem(TOKEN_KEY, next);
      setToken(next);
    },
  ];
}

export function Connection({ state }: { state: StreamState }) {
  const text =
    state.kind === "live"
      ? "live"
      : state.kind === "connecting"
        ? "connecting…"
        : state.kind === "retrying"
          ? `reconnecting in ${span(state.inMs / 1000)} (${state.why})`
          : `refused: ${state.why}`;
  return (
    <p class={`connection ${state.kind}`} data-testid="connection">
      {text}
    </p>
  );
}

export function TokenForm({ why, onToken }: { why: string; onToken: (token: string) => void }) {
  const [value, setValue] = useState("");
  return (
    <form
      class="token"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) onToken(value.trim());
      }}
    >
      <p>{why}</p>
      <label>
        Bearer token <input type="password" value={value} onInput={(e) => setValue(e.currentTarget.value)} data-testid="token" />
      </label>
      <button type="submit">Use token</button>
    </form>
  );
}

/** Renders `page` in place of the HTML's `#app` (its "Loading…"). */
export function mount(page: ComponentChild): void {
  const root = document.getElementById("app");
  if (!root) return;
  root.textContent = "";
  render(page, root);
}
