#!/usr/bin/env bash
# Install the system packages mirtune needs (clang, libomp, llvm's profile tools, gcc-12-source, libtinfo5) when
# they are missing.
# As root this uses apt-get; otherwise it stops with one line naming what to install.
set -euo pipefail

missing=()

find_clang() {
    if [[ -n "${MIRTUNE_CLANG:-}" ]]; then command -v "$MIRTUNE_CLANG" && return 0; fi
    for c in clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14; do
        if command -v "$c" >/dev/null 2>&1; then command -v "$c"; return 0; fi
    done
    return 1
}

clang_bin="$(find_clang || true)"
if [[ -z "$clang_bin" ]]; then
    missing+=(clang-14 libomp-14-dev)
else
    # libomp: can this clang link an OpenMP program?
    tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
    printf '#include <omp.h>\nint main(void){return omp_get_max_threads()>0?0:1;}\n' > "$tmp/t.c"
    if ! "$clang_bin" -fopenmp "$tmp/t.c" -o "$tmp/t" >/dev/null 2>&1; then
        ver="$("$clang_bin" --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)"
        missing+=("libomp-${ver:-14}-dev")
    fi
fi
# llvm-profdata and llvm-cov of clang's own version: the GCC vectorizer tests' loop profiles (collectors/gccvect_build.py).
if [[ -n "$clang_bin" ]]; then
    ver="$("$clang_bin" --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)"
    if ! command -v "llvm-profdata-${ver:-14}" >/dev/null 2>&1 || ! command -v "llvm-cov-${ver:-14}" >/dev/null 2>&1; then
        missing+=("llvm-${ver:-14}")
    fi
fi
# gcc-12-source: GCC's testsuite, whose vectorizer tests become VF/IF programs (collectors/gccsrc.py).
if ! ls /usr/src/gcc-12/gcc-*.tar.xz >/dev/null 2>&1; then
    missing+=(gcc-12-source)
fi
# libtinfo5: needed only by ProGraML's reference binary used in the tests.
if ! ldconfig -p 2>/dev/null | grep -q 'libtinfo.so.5'; then
    missing+=(libtinfo5)
fi

if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi
if [[ "$(id -u)" -ne 0 ]]; then
    echo "mirtune setup: missing system packages; install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
fi
echo "mirtune setup: installing ${missing[*]} with apt-get"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
