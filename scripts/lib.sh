# Shared helpers for the scripts in this directory. Source it; do not run it.
set -euo pipefail

FALCON_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export FALCON_ROOT
FALCON_VERSION="$(head -n1 "$FALCON_ROOT/VERSION")"
export FALCON_VERSION
FALCON_VENV="$FALCON_ROOT/.venv"
JOBS="${FALCON_JOBS:-$(nproc 2>/dev/null || echo 2)}"

log() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The JDK that builds and tests the jar (17 here; the jar itself is Java 8
# bytecode).
detect_java_home() {
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/javac" ]]; then return; fi
  local javac
  javac="$(command -v javac || true)"
  [[ -n "$javac" ]] || die "no javac on PATH (run scripts/setup.sh)"
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$javac")")")"
  export JAVA_HOME
}

native_library() { echo "$FALCON_ROOT/build/dev/native/libfalcon_jni.so"; }

# Configure (once) and build one CMake preset.
build_preset() {
  local preset="$1"
  if [[ ! -f "$FALCON_ROOT/build/$preset/CMakeCache.txt" ]]; then
    cmake --preset "$preset" -S "$FALCON_ROOT" >/dev/null
  fi
  cmake --build --preset "$preset" -j "$JOBS"
}

mvn_cmd() {
  # -ntp keeps download progress out of CI logs.
  mvn -B -ntp -f "$FALCON_ROOT/java/pom.xml" "$@"
}
