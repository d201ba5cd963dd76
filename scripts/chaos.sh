#!/usr/bin/env bash
# The fault-injection suite's long profile: rounds through every fault, both stores and every
# candidate kind until at least ROUNDS leader changes (default 1000), with the release build.
#   scripts/chaos.sh REPORT.json [ROUNDS] [extra fault_suite.py options...]
# TENURE_BIN and TENURE_ELECT override the binaries (default build/src/cli/tenure and
# build/examples/tenure-elect). Prints the summary table; exits non-zero when a round failed.
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: $0 REPORT.json [ROUNDS] [fault_suite.py options...]" >&2
  exit 2
fi
repo="$(cd "$(dirname "$0")/.." && pwd)"
report="$(realpath -m "$1")"
rounds="${2:-1000}"
shift $(( $# >= 2 ? 2 : 1 ))
export TENURE_BIN="${TENURE_BIN:-$repo/build/src/cli/tenure}"
export TENURE_ELECT="${TENURE_ELECT:-$repo/build/examples/tenure-elect}"
# Relative paths name files from the repository (the suite runs in tests/integration).
if [[ -n "${TENURE_CLOCK_SKEW_LIB:-}" ]]; then
  export TENURE_CLOCK_SKEW_LIB="$(cd "$repo" && realpath -m "$TENURE_CLOCK_SKEW_LIB")"
  if [[ ! -f "$TENURE_CLOCK_SKEW_LIB" ]]; then
    echo "chaos: $TENURE_CLOCK_SKEW_LIB is not built (make)" >&2
    exit 2
  fi
fi
for bin in "$TENURE_BIN" "$TENURE_ELECT"; do
  if [[ ! -x "$bin" ]]; then
    echo "chaos: $bin is not built (make, or set TENURE_BIN / TENURE_ELECT)" >&2
    exit 2
  fi
done
python="${TENURE_PYTHON:-/usr/bin/python3}"
cd "$repo/tests/integration"
exec "$python" fault_suite.py --profile long --rounds "$rounds" --report "$report" "$@"
