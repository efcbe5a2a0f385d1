/**
 * Bounded, credential-free text for everything the service shows or keeps (status, history, state, events, logs):
 * what a registry, an image or a request sends can be arbitrarily long and a URL from the configuration can carry a
 * password, and neither may reach a reader as is.
 */

/** Items a message lists before it says how many more there are: more than a real cluster's ClusterOperators (~35). */
export const MAX_LISTED = 50;

/** Characters of one status text (a failure, a condition's message, accepted risks) before it is cut. */
export const MAX_STATUS_TEXT = 4096;

/**
 * `items` joined with ", ", at most `max` of them, then "… and N more" for the rest, so a message about a list an
 * outsider controls (an image index's platforms, capability names) stays short however long the list is.
 */
export function listText(items: readonly string[], max = MAX_LISTED): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} … and ${items.length - max} more` : shown;
}

/** `text` cut to `max` characters (never inside a surrogate pair), saying how many more there were. */
export function truncateText(text: string, max = MAX_STATUS_TEXT): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)} … and ${text.length - end} more characters`;
}

/**
 * A URL's authority up to its last "@" (WHATWG: userinfo ends at the last "@" before the path, query or fragment;
 * special schemes also end the authority at "\").
 */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/\\?#"'<>]*@/gi;

/**
 * `text` with the user name and password of every URL in it replaced by "redacted" (`http://user:pw@host/` →
 * `http://redacted@host/`). Applied to whole texts, not only to URLs known to be URLs, because a registry's or a
 * library's error text may quote the URL it was given.
 */
export function redactCredentials(text: string): string {
  return text.includes("@") ? text.replace(USERINFO, "$1redacted@") : text;
}

/** What a status text becomes before anyone sees it: credentials redacted, then bounded. */
export function statusText(text: string): string {
  return truncateText(redactCredentials(text));
}
