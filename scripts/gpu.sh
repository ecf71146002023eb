#!/usr/bin/env bash
# The one entry point for the device machine (docs/gpu-device.md), run from the repository root:
#   scripts/gpu.sh STUDY [STAGE [OUT]]   one stage of one study (STAGE: the study's default stage)
#   scripts/gpu.sh all [STAGE [OUT]]     every study's STAGE (default: each one's default stage),
#                                        each into OUT/<study>-<stage>
#   scripts/gpu.sh --list                the studies and their stages
# STUDY is `engine` (scripts/gpu-stages.sh: the GPU tests, the bench, the standard sweep, the
# workloads, ...) or a study with studies/<name>/gpu-stages.sh. OUT defaults to
# /tmp/alloclab-gpu/<study>-<stage> (all: /tmp/alloclab-gpu). Every stage builds what it needs in
# $BUILD (default build-gpu-pass), records the device in OUT/metadata.json and logs to OUT/log.txt.
# GPU_DRY_RUN=1 prints the commands instead of running them (BUILD=build: a CPU build answers the
# registry's queries). Needs the Debian dev packages of scripts/device-deps.sh in .devdeps/
# (carried to the device); set ALLOCLAB_COMMIT / ALLOCLAB_DIRTY when .git does not travel.
# An unknown study or stage: one line on stderr, exit 2.
set -euo pipefail
caller=$PWD # a relative OUT is the caller's
cd "$(dirname "$0")/.."
absolute() { case $1 in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac; }

# The stage files: engine first, then each study folder's.
stage_file() {
  if [ "$1" = engine ]; then echo scripts/gpu-stages.sh; else echo "studies/$1/gpu-stages.sh"; fi
}
studies() {
  echo engine
  local f
  for f in studies/*/gpu-stages.sh; do
    if [ -e "$f" ]; then basename "$(dirname "$f")"; fi
  done
}
# A stage is a function `stage_<name>() { # what it does` in its study's file ('-' in a stage's
# name is '_' in the function's); the file names its default with GPU_DEFAULT_STAGE=<name>.
stages() { sed -n 's/^stage_\([a-z0-9_]*\)() { *#.*/\1/p' "$(stage_file "$1")" | tr _ -; }
stage_line() {
  sed -n "s/^stage_${2//-/_}() { *# *//p" "$(stage_file "$1")"
}
default_stage() { sed -n 's/^GPU_DEFAULT_STAGE=\([a-z0-9-]*\).*/\1/p' "$(stage_file "$1")"; }

# Membership in a list of words (no grep -q in a pipe: with pipefail its early exit fails the pipe).
among() { [[ " $(words "$2") " == *" $1 "* ]]; }
words() { echo "$1" | paste -sd' ' -; } # a list, one a line, as one line

STUDIES=$(studies)
usage="usage: scripts/gpu.sh STUDY|all [STAGE [OUT]] | --list   (STUDY: $(words "$STUDIES"))"

if [ $# = 0 ]; then
  echo "$usage" >&2
  exit 2
fi
if [ "$1" = --help ] || [ "$1" = -h ]; then
  echo "$usage"
  exit 0
fi
if [ "$1" = --list ]; then
  for study in $STUDIES; do
    echo "$study ($(stage_file "$study"); default stage: $(default_stage "$study"))"
    for stage in $(stages "$study"); do
      printf '  %-12s %s\n' "$stage" "$(stage_line "$study" "$stage")"
    done
  done
  exit 0
fi
[ $# -le 3 ] || {
  echo "gpu.sh: too many arguments ($#; $usage)" >&2
  exit 2
}
STUDY=$1
STAGE=${2:-}
if [ "$STUDY" != all ] && ! among "$STUDY" "$STUDIES"; then
  echo "gpu.sh: unknown study '$STUDY' (known: all $(words "$STUDIES"))" >&2
  exit 2
fi

if [ "$STUDY" = all ]; then
  # Each study's stage in a process of its own (its log, its OUT); the order is the study
  # table's (`alloclab list --studies`) where alloclab is built, else the folders'.
  if [ -n "$STAGE" ] && ! among "$STAGE" "$(for s in $STUDIES; do stages "$s"; done)"; then
    echo "gpu.sh: unknown stage '$STAGE': no study has it (scripts/gpu.sh --list)" >&2
    exit 2
  fi
  OUT=$(absolute "${3:-/tmp/alloclab-gpu}")
  order=$STUDIES
  al=${BUILD:-build-gpu-pass}/cli/alloclab
  if [ -x "$al" ]; then
    order="engine $(for s in $("$al" list --studies --names); do
      among "$s" "$STUDIES" && echo "$s"
    done | paste -sd' ' -)"
  fi
  failed=()
  for s in $order; do
    stage=${STAGE:-$(default_stage "$s")}
    among "$stage" "$(stages "$s")" || continue
    echo "== gpu.sh all: $s $stage -> $OUT/$s-$stage"
    "$PWD/scripts/gpu.sh" "$s" "$stage" "$OUT/$s-$stage" || failed+=("$s $stage")
  done
  if ((${#failed[@]})); then
    echo "gpu.sh all: FAILED: ${failed[*]}" >&2
    exit 1
  fi
  echo "gpu.sh all: done: $OUT"
  exit 0
fi

STAGE=${STAGE:-$(default_stage "$STUDY")}
if ! among "$STAGE" "$(stages "$STUDY")"; then
  echo "gpu.sh: unknown stage '$STAGE' of $STUDY (known: $(words "$(stages "$STUDY")"))" >&2
  exit 2
fi
OUT=$(absolute "${3:-/tmp/alloclab-gpu/$STUDY-$STAGE}")
mkdir -p "$OUT"
# shellcheck source=scripts/gpu-setup.sh
. scripts/gpu-setup.sh
# shellcheck source=scripts/gpu-stages.sh
. "$(stage_file "$STUDY")"
gpu_log_start "gpu.sh $STUDY $STAGE"
stamp "$STUDY $STAGE -> $OUT$(gpu_dry && echo ' (dry run: commands printed, not run)')"
"stage_${STAGE//-/_}"
stamp "done: $STUDY $STAGE -> $OUT"
