#!/usr/bin/env bash
# The quick start's main job: installs what is missing, builds the dev native
# library and the jar (falcon-flink only), then runs the same stateful job on a
# local Flink MiniCluster with the stock RocksDB backend and with Falcon, and
# prints both results and the [FALCON] lines.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

"$FALCON_ROOT/scripts/setup.sh"
detect_java_home

log "native build: dev"
build_preset dev

log "Java build (falcon-flink)"
mvn_cmd -q -pl falcon-flink -am package -DskipTests
classpath_file="$FALCON_ROOT/java/falcon-flink/target/demo.classpath"
mvn_cmd -q -pl falcon-flink dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$classpath_file"

module="$FALCON_ROOT/java/falcon-flink/target"
classpath="$module/classes:$module/test-classes:$(cat "$classpath_file")"
# shellcheck disable=SC2207  # the flags are space-separated by design
module_flags=($(grep -m1 -o '<java17.opens>[^<]*' "$FALCON_ROOT/java/pom.xml" | cut -d'>' -f2))

log "main job: stock RocksDB vs Falcon (Flink MiniCluster)"
"$JAVA_HOME/bin/java" "${module_flags[@]}" -Xmx1g \
  -Dfalcon.native.library="$(native_library)" \
  -Dlog4j.configurationFile=demo-log4j2.properties \
  -cp "$classpath" io.falconstate.flink.demo.DemoJob
