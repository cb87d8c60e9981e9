#!/usr/bin/env bash
# Fails when a contract breaks clients of the released one, unless its info.version
# starts a new major version.
#
#   tools/breaking-check.sh [BASE [REVISION]]   default: the last release's contract
#                                               (docs/api/openapi-v1.0.0.yaml) and
#                                               openapi.yaml
#   tools/breaking-check.sh --self-test         runs the check on the fixtures in
#                                               tools/testdata/breaking, which it must
#                                               pass or fail as their names say
#
# oasdiff (pinned in tools/go.mod) finds the changes; errors and warnings both fail.
# tools/oasdiff-ignore.txt lists, with the reason, the changes it reports that break
# nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

oasdiff() { go tool -modfile=tools/go.mod oasdiff "$@"; }
ignore=tools/oasdiff-ignore.txt

# major prints the major number of a contract's info.version.
major() {
  local v
  v=$(awk '/^info:/ {in_info=1; next} /^[^ #]/ {in_info=0} in_info && /^  version:/ {print $2; exit}' "$1" | tr -d "\"'")
  if [[ ! "$v" =~ ^v?[0-9]+ ]]; then
    echo "breaking-check: $1 has no info.version of the form MAJOR.MINOR.PATCH (got '$v')" >&2
    return 1
  fi
  v=${v#v}
  echo "${v%%.*}"
}

# check compares revision with base; it returns 1 on a breaking change within one major.
check() {
  local base=$1 rev=$2 mb mr
  mb=$(major "$base") && mr=$(major "$rev") || return 2
  if [[ "$mb" != "$mr" ]]; then
    echo "breaking-check: $rev is major $mr, $base major $mb: breaking changes are allowed"
    return 0
  fi
  if oasdiff breaking "$base" "$rev" --fail-on WARN --err-ignore "$ignore" --warn-ignore "$ignore"; then
    echo "breaking-check: $rev keeps every client of $base working (major $mr)"
    return 0
  fi
  echo "breaking-check: $rev breaks clients of $base; keep the old behaviour or bump info.version to a new major" >&2
  return 1
}

if [[ "${1:-}" == "--self-test" ]]; then
  dir=tools/testdata/breaking
  failed=0
  for rev in "$dir"/pass-*.yaml "$dir"/fail-*.yaml; do
    want=0
    [[ "$(basename "$rev")" == fail-* ]] && want=1
    got=0
    check "$dir/base.yaml" "$rev" >/dev/null 2>&1 || got=$?
    if [[ "$got" != "$want" ]]; then
      echo "breaking-check self-test: $rev: exit $got, want $want" >&2
      failed=1
    else
      echo "breaking-check self-test: $rev: exit $got as expected"
    fi
  done
  exit "$failed"
fi

check "${1:-docs/api/openapi-v1.0.0.yaml}" "${2:-openapi.yaml}"
