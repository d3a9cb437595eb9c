#!/usr/bin/env bash
# A Flink standalone cluster by hand (FLINK_VERSION, default 1.16.3; the same assembly and process
# control run.sh uses).
#
#   tests/e2e/cluster.sh assemble
#       assembles (or reuses) build/e2e/flink-<version> from Maven Central and prints its path
#   tests/e2e/cluster.sh start [--stock] [--no-native] [--home DIR] [-D key=value ...]
#       installs Flink into DIR (default build/e2e/manual/flink), installs Falcon as README.md
#       says (jar and libfalcon_jni.so into lib/, the conf/flink-conf.yaml lines; --no-native
#       leaves the library out, --stock installs nothing), applies the -D settings to the
#       installation's conf/flink-conf.yaml, starts one JobManager and one TaskManager, prints
#       how to submit a job, and runs until Ctrl-C; both JVMs are stopped on exit.
#
# FALCON_JAR / FALCON_NATIVE override the jar (default: the one of FLINK_VERSION's minor in
# java/falcon-flink-<minor>/target/) and the library (default build/dev/native/libfalcon_jni.so).
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"
source "$FALCON_ROOT/tests/e2e/lib/flink.sh"

usage() { sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }

cmd="${1:-}"; shift || true
case "$cmd" in
  assemble)
    flink_assemble
    echo "$FLINK_DIST"
    ;;
  start)
    home="$E2E_BUILD/manual/flink" falcon=jar+so
    settings=()
    while (( $# )); do
      case "$1" in
        --stock) falcon=none ;;
        --no-native) falcon=jar ;;
        --home) home="$2"; shift ;;
        -D) settings+=("$2"); shift ;;
        -D*) settings+=("${1#-D}") ;;
        *) usage ;;
      esac
      shift
    done
    detect_java_home
    flink_assemble
    flink_install "$home"
    home="$(readlink -f "$home")"
    if [[ "$falcon" != none ]]; then
      minor="${FLINK_VERSION%.*}"
      jar="${FALCON_JAR:-$FALCON_ROOT/java/falcon-flink-$minor/target/falcon-flink-$minor-$FALCON_VERSION.jar}"
      [[ -f "$jar" ]] || die "no $jar (mvn -f java/pom.xml package -DskipTests)"
      so=""
      if [[ "$falcon" == jar+so ]]; then
        so="${FALCON_NATIVE:-$(native_library)}"
        [[ -f "$so" ]] || die "no $so"
      fi
      falcon_install "$home" "$jar" "$so"
    fi
    for kv in "${settings[@]}"; do flink_conf_set "$home" "${kv%%=*}" "${kv#*=}"; done
    trap cluster_stop EXIT
    trap 'exit 130' INT TERM
    cluster_start_jobmanager "$home"
    cluster_start_taskmanager "$home" 1
    cat <<EOF

Flink $FLINK_VERSION is up (Falcon: $falcon). FLINK_HOME=$home
  REST:            $(rest_url "$home")
  TaskManager log: $home/log/flink-taskexecutor-1.log   (grep '\[FALCON\]')
  submit a job:    source scripts/lib.sh; source tests/e2e/lib/flink.sh; flink_cli $home run -d <job.jar> ...
Ctrl-C stops the cluster.
EOF
    while _alive "$JM_PID"; do sleep 1; done
    ;;
  *) usage ;;
esac
