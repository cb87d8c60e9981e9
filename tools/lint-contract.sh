#!/usr/bin/env bash
# Lints the contract with the stock rulesets of Spectral (spectral:oas, from
# .spectral.yaml) and Redocly (recommended), and fails on any error or warning:
# integrators run these linters on openapi.yaml, so it must be clean under both.
set -uo pipefail
spec=${1:-openapi.yaml}
bin="$(dirname "$0")/node_modules/.bin"
status=0

echo "== spectral lint (spectral:oas) $spec"
"$bin/spectral" lint --ruleset .spectral.yaml --fail-severity=warn "$spec" || status=1

echo "== redocly lint (recommended) $spec"
# Redocly exits non-zero only on errors; its summary line counts the warnings too.
# The box it prints about the Node.js version is not about the contract.
out=$("$bin/redocly" lint --extends=recommended --format=stylish "$spec" 2>&1) || status=1
grep -v -e '║' -e '╔' -e '╚' <<<"$out" | sed '/^$/d'
if grep -Eq '^[[:space:]]+[0-9]+:[0-9]+[[:space:]]+(error|warning)' <<<"$out"; then
  status=1
fi

if ((status)); then
  echo "lint-contract: openapi.yaml has problems (see above)"
else
  echo "lint-contract: 0 errors, 0 warnings (spectral:oas, redocly recommended)"
fi
exit $status
