#!/usr/bin/env bash
# Fails when a C++ file of the repository differs from what .clang-format asks for, naming the
# places. `make format` rewrites them.
set -euo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
mapfile -t files < <(git ls-files '*.cc' '*.h')
if "$CLANG_FORMAT" --dry-run -Werror "${files[@]}"; then
  echo "clang-format: ${#files[@]} files formatted as .clang-format asks"
else
  echo "clang-format: the files above differ from .clang-format; run 'make format'" >&2
  exit 1
fi
