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

# The Maven properties that build the Nexmark module and the benchmarks against Flink minor $1
# (1.16 ... 1.20): its Falcon module and the versions that module's pom sets. One per line.
flink_minor_properties() {
  local pom="$FALCON_ROOT/java/falcon-flink-$1/pom.xml" property value
  [[ -f "$pom" ]] || die "no Falcon module for Flink $1 (java/falcon-flink-$1)"
  echo "-Dfalcon.flink.artifact=falcon-flink-$1"
  for property in flink.version frocksdbjni.version flink.state-processor-api.version \
    junit5.version; do
    value="$(grep -m1 -o "<$property>[^<]*" "$pom" | cut -d'>' -f2 || true)"
    [[ -n "$value" ]] && echo "-D$property=$value"
  done
  return 0
}

mvn_cmd() {
  # -ntp keeps download progress out of CI logs.
  mvn -B -ntp -f "$FALCON_ROOT/java/pom.xml" "$@"
}
