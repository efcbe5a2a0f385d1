import { homedir } from "node:os";
import { dirname, join } from "node:path";

/** Where scripts/setup-clients.sh installs the pinned tools (scripts/plugins/tools.sh decides the same way). */
export const TOOLS = process.env["SYNCWORKER_TOOLS"] ?? join(process.env["XDG_CACHE_HOME"] ?? join(homedir(), ".cache"), "syncworker");

/** The Python of that setup's venv, with grpcio, pytest and hadolint. */
export const PYTHON = process.env["SYNCWORKER_PYTHON"] ?? join(TOOLS, "venv/bin/python");

/** A command the venv installed (its scripts sit beside its Python). */
export const venvCommand = (name: string): string => join(dirname(PYTHON), name);
