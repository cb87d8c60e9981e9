#!/usr/bin/env bash
# Lints deploy/Dockerfile with dockerfilelint (pinned in tools/package.json) and checks
# what the linter does not: the last stage runs as a non-root user and has a
# HEALTHCHECK. First a canary with known mistakes must fail the linter, so a linter
# that checks nothing cannot pass.
#
# Usage: tools/lint-docker.sh [DOCKERFILE]   (default: deploy/Dockerfile)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
file="${1:-deploy/Dockerfile}"
lint=tools/node_modules/.bin/dockerfilelint
[[ -x $lint ]] || { echo "lint-docker: $lint is missing: run make npm-tools" >&2; exit 1; }

if "$lint" tools/testdata/docker/bad.Dockerfile >/dev/null 2>&1; then
	echo "lint-docker: dockerfilelint passed tools/testdata/docker/bad.Dockerfile, which has known mistakes" >&2
	exit 1
fi

"$lint" "$file" || { echo "lint-docker: dockerfilelint reports issues in $file" >&2; exit 1; }

# The last stage: everything after the last FROM.
last="$(awk 'toupper($1) == "FROM" { buf = "" } { buf = buf $0 "\n" } END { printf "%s", buf }' "$file")"
user="$(printf '%s' "$last" | awk 'toupper($1) == "USER" { u = $2 } END { print u }')"
case "${user%%:*}" in
"" | root | 0) echo "lint-docker: the last stage of $file must switch to a non-root USER (has: ${user:-none})" >&2; exit 1 ;;
esac
printf '%s' "$last" | grep -Eq '^HEALTHCHECK[[:space:]]+.*CMD' ||
	{ echo "lint-docker: the last stage of $file has no HEALTHCHECK ... CMD" >&2; exit 1; }

echo "lint-docker: $file: no dockerfilelint issues, runs as user $user, has a HEALTHCHECK"
