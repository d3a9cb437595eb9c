#!/usr/bin/env bash
# The one test command (README quick start; .ci/run calls exactly this):
# installs what is missing, builds the native code three ways (dev, ASan+UBSan,
# TSan), runs the native tests of each under ctest, then builds the jar and
# runs the Java tests with Maven against the dev build's libfalcon_jni.so.
# It ends with ctest's and Surefire's summaries.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
start=$SECONDS

"$FALCON_ROOT/scripts/setup.sh"
detect_java_home

# Formatting first, so a run fails in seconds: C++ with clang-format (.clang-format); Java with
# google-java-format, which Maven checks in its validate phase (spotless:apply fixes it).
log "clang-format check"
(cd "$FALCON_ROOT" && git ls-files -z -- '*.cc' '*.h' | xargs -0 clang-format-14 --dry-run --Werror)

for preset in asan tsan dev; do
  log "native build: $preset"
  build_preset "$preset"
done

for preset in asan tsan; do
  log "native tests under $preset (sanitizers run outside the JVM)"
  ctest --preset "$preset" -j "$JOBS"
done

log "fuzz: hot_state_cache_fuzz for 30 s (preset fuzz, clang, ASan+UBSan)"
build_preset fuzz
mkdir -p "$FALCON_ROOT/build/fuzz/corpus/hot_state_cache"
"$FALCON_ROOT/build/fuzz/tests/fuzz/hot_state_cache_fuzz" -max_total_time=30 -max_len=2048 \
  -print_final_stats=1 "$FALCON_ROOT/build/fuzz/corpus/hot_state_cache"

log "native tests: dev"
ctest --preset dev -j "$JOBS"

log "Java build and tests (every Flink minor: full suites on 1.16 and 1.20, seam smoke sets between)"
echo "native stages took $((SECONDS - start)) s"
mvn_cmd verify -Dfalcon.native.library="$(native_library)"

# The cache's and the native wrappers' Java tests again (Flink's state backend test base on a
# tiny cache, the MapState differential test, every native call's argument checks, the JNI
# constants), on a libfalcon_jni.so built with AddressSanitizer and UBSan: the JVM gets
# libasan preloaded (it must come first); the JVM's own SIGSEGV handling and stacks are left
# alone, and leaks are not checked (the JVM does not free at exit). About 5 minutes with the
# two Surefire forks the pom sets.
log "cache tests through JNI on the ASan+UBSan library"
build_preset asan-jni
LD_PRELOAD="$(gcc -print-file-name=libasan.so)" \
  ASAN_OPTIONS="detect_leaks=0:handle_segv=0:allow_user_segv_handler=1:use_sigaltstack=0:detect_stack_use_after_return=0:abort_on_error=1" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  mvn_cmd -o -pl falcon-flink-1.16 surefire:test -Dtest='io.falconstate.flink.cache.*Test,io.falconstate.flink.nativeaccess.NativeHotStateCacheTest,io.falconstate.flink.nativeaccess.NativeLayoutTest' \
    -Dsurefire.failIfNoSpecifiedTests=false -Dfalcon.native.library="$FALCON_ROOT/build/asan-jni/native/libfalcon_jni.so"

# The jar Maven just built and the dev library, as a release bundle, installed into a real Flink 1.16.3
# cluster (separate JobManager and TaskManager JVMs) exactly as docs/deployment.md tells users.
log "end-to-end: Flink 1.16.3 standalone cluster"
"$FALCON_ROOT/tests/e2e/run.sh"
