#!/usr/bin/env bash
# Builds several targets of a configured build tree (Unix Makefiles) at once. `cmake --build <dir> --target a b`
# builds them one after another, each a single source here: the top Makefile is .NOTPARALLEL. CMake's own
# CMakeFiles/Makefile2, which `make all` uses, resolves their dependencies and runs them in parallel.
# usage: scripts/build-targets.sh <build dir> <target>...
set -uo pipefail
build=${1:?usage: build-targets.sh <build dir> <target>...}
shift
exec make -C "$build" -f CMakeFiles/Makefile2 -j"$(nproc)" --no-print-directory "$@"
