# Sourced by the plugin wrappers: where scripts/setup-clients.sh installs the pinned code generators.
# Outside the repository so a checkout stays clean; overridable for machines that keep tools elsewhere.
SYNCWORKER_TOOLS="${SYNCWORKER_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/syncworker}"
SYNCWORKER_PYTHON="${SYNCWORKER_PYTHON:-$SYNCWORKER_TOOLS/venv/bin/python}"
missing() {
  echo "$1 is not installed: run scripts/setup-clients.sh" >&2
  exit 1
}
