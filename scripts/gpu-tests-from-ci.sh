#!/usr/bin/env bash
# The GPU tests in under two minutes of device time (on an H200: 45 s of ctest, 45 s of the property test's long
# run), from CI's own build instead of a build on the GPU machine (scripts/gpu-suite.sh builds everything there
# first, about 7 minutes in all).
#
#   bash .ci/run                                     # here, on a clone: builds everything (Release, sm_90)
#   bash scripts/gpu-tests-from-ci.sh pack [BUILD]   # here: BUILD (default build/release) -> .bin/ci-tests.tar.xz
#   bash scripts/gpu-tests-from-ci.sh run            # on the GPU machine, from the repository root, carrying .bin
#
# pack keeps the gpu-labelled tests' binaries (stripped) and the CTestTestfiles; CI has run the host tests. The
# CTestTestfiles name CI's absolute paths, so run unpacks them at the same path. Not run: the install tests (they
# build from source with CMake, which is elsewhere on the GPU machine) and nccl.device_reduce_nccl (it skips on one
# GPU, and its binary is left out to keep the carry under 64 MiB); EXCLUDE, a ctest regex given to both modes the same,
# leaves out more where the pack and the tracked files pass 64 MiB. run unpacks, then hands over to gpu-suite.sh
# (PREBUILT=1, BENCH=0): the selected tests, the property test's long run, the summary; logs go to $OUT.
set -uo pipefail
mode=${1:-}
PACK=.bin/ci-tests.tar.xz
# What neither packs nor runs; the same EXCLUDE for both (a larger one keeps the carry under 64 MiB as the tests grow).
EXCLUDE=${EXCLUDE:-'^(install\.|nccl\.device_reduce_nccl$)'}
# INCLUDE (a ctest -R regex, the same for both modes): only those tests, to split the suite over two packs and two
# calls where one pack passes 64 MiB, e.g. INCLUDE='^(device|host)\.' and then EXCLUDE='^(install\.|nccl\.device_reduce_nccl$|device\.|host\.)'.
INCLUDE=${INCLUDE:-.}

if [[ $mode == pack ]]; then
  build=$(cd "${2:-build/release}" && pwd) || exit 1
  stage=$(mktemp -d)
  # Each test's executable, from ctest's own list of the gpu-labelled tests.
  ctest --test-dir "$build" -L gpu -R "$INCLUDE" -E "$EXCLUDE" --show-only=json-v1 | python3 -c '
import json, sys
for t in json.load(sys.stdin)["tests"]:
    print(t["command"][0])' | sort -u >"$stage/binaries"
  (cd "$build" && find . -name CTestTestfile.cmake) >"$stage/files"
  sed "s|^$build/|./|" "$stage/binaries" >>"$stage/files"
  mkdir "$stage/tree" && (cd "$build" && tar cf - -T "$stage/files") | (cd "$stage/tree" && tar xf -) || exit 1
  find "$stage/tree" -type f -perm -u+x -exec strip {} +
  echo "$build" >"$stage/tree/build-path"
  mkdir -p .bin && (cd "$stage/tree" && tar cf - .) | xz -T0 -9e >"$PACK" || exit 1
  echo "$PACK: $(wc -l <"$stage/binaries") binaries, $(du -h "$PACK" | cut -f1) (the carry, with the tracked files, must stay under 64 MiB)"
  rm -rf "$stage"
  exit 0
fi
[[ $mode == run ]] || { echo "usage: $0 pack [BUILD] | run" >&2; exit 2; }

build=$(tar xJf "$PACK" -O ./build-path) || exit 1
mkdir -p "$build" && tar xJf "$PACK" -C "$build" || exit 1
BUILD=$build PREBUILT=1 BENCH=0 CTEST_ARGS="-L gpu -R $INCLUDE -E $EXCLUDE" exec bash "$(dirname "$0")/gpu-suite.sh"
