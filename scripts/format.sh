#!/usr/bin/env bash
# Formats every C and C++ source (tracked or new) with the checked-in .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
git ls-files -co --exclude-standard -- '*.cc' '*.h' '*.c' | xargs clang-format -i
