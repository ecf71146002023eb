#!/usr/bin/env bash
# Fails (exit 1) when clang-format would change a tracked C++ or CUDA file; lists the files and
# the fix. CI runs it (scripts/setup.sh test). The formatter is Debian 12's clang-format (14),
# with the repository's .clang-format; other versions may format some constructs differently.
#   scripts/check-format.sh            check
#   scripts/check-format.sh --fix      reformat the offending files in place
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || {
  echo "check-format: clang-format not found (Debian: apt-get install clang-format)" >&2
  exit 2
}
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h' '*.cc' '*.cu' '*.cuh')
else # a copy without .git: the sources outside build and output directories
  mapfile -t files < <(find . \( -path './build*' -o -path './out' -o -path './.*' \) -prune -o \
    -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cc' -o -name '*.cu' \
    -o -name '*.cuh' \) -print | sort)
fi
bad=()
for f in "${files[@]}"; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]} == 0)); then
  echo "check-format: ${#files[@]} C++/CUDA files formatted ($(clang-format --version))"
  exit 0
fi
if [ "${1:-}" = --fix ]; then
  clang-format -i "${bad[@]}"
  echo "check-format: reformatted ${bad[*]}"
  exit 0
fi
echo "check-format: clang-format would change ${#bad[@]} file(s):" >&2
printf '  %s\n' "${bad[@]}" >&2
echo "fix with: scripts/check-format.sh --fix   (or clang-format -i FILE)" >&2
exit 1
