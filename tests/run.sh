#!/usr/bin/env bash
# Installs everything the tests need (system packages too, when run as root
# on Debian/Ubuntu), builds and installs tokinspect, and runs every test.
# Usage: bash tests/run.sh [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    # gcc: the extension; the rest: PySide6 under QT_QPA_PLATFORM=offscreen (tests/test_gui.py)
    pkgs=(gcc libc6-dev libgl1 libegl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0)
    # clang + libFuzzer/TSan runtimes: tests/test_fuzz.py, tests/test_tsan.py; valgrind: tests/test_valgrind.py
    pkgs+=(clang libclang-rt-14-dev valgrind)
    # the test board (tests/boardfix.py): a real sshd, and an aarch64 board = static cross builds under qemu
    pkgs+=(openssh-server openssh-client qemu-user-static gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
    # g++: libstdc++'s mt19937 + uniform_real_distribution<double> as the oracle of the llama.cpp draw, and
    # llama.cpp's llama-tokenize (tests/llamacpp_build.py: host, and aarch64 for the test board)
    pkgs+=(g++ g++-aarch64-linux-gnu)
    # Windows hosts: tokcore.exe cross-built with mingw-w64 and run under wine (tests/test_windows.py)
    pkgs+=(gcc-mingw-w64-x86-64 wine64)
    # fonts for the window's screenshots (tokinspect --screenshot): Chinese (zh_CN) and the sample text's emoji
    pkgs+=(fonts-noto-cjk fonts-noto-color-emoji)
    missing=()
    for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    if [ ${#missing[@]} -gt 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
fi

PY=${PYTHON:-python3}
"$PY" -m pip install -q --disable-pip-version-check -e ".[test]"
"$PY" -m ruff check app widgets resources tests bench
# the slowest tests, to keep the whole run inside CI's 90 minutes
"$PY" -m pytest -q -p no:cacheprovider --durations=25 "$@"
