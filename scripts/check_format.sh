#!/usr/bin/env bash
# Fails when a C++ file of the repository differs from what .clang-format asks for, naming the
# places. `make format` rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
# An empty list would make clang-format read standard input and pass: git must answer.
listed=$(git ls-files '*.cc' '*.h') || { echo "clang-format check: git ls-files failed" >&2; exit 1; }
mapfile -t files <<<"$listed"
if [ -z "$listed" ] || [ ${#files[@]} -eq 0 ]; then
  echo "clang-format check: git lists no C++ files" >&2
  exit 1
fi
if "$CLANG_FORMAT" --dry-run -Werror "${files[@]}" </dev/null; then
  echo "clang-format: ${#files[@]} files formatted as .clang-format asks ($("$CLANG_FORMAT" --version))"
else
  echo "clang-format: the files above differ from .clang-format; run 'make format'" >&2
  exit 1
fi
