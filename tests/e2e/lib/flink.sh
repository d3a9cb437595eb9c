# A Flink standalone installation (FLINK_VERSION, default 1.16.3) from Maven Central artifacts, and the process control a
# real launcher (flink-dist's bin/jobmanager.sh, taskmanager.sh, flink) would do. Source it after
# scripts/lib.sh; it defines functions only.
#
#   flink_assemble                      cached stock installation in build/e2e/flink-<version>
#   flink_install HOME                  a working copy of it (lib/ hard-linked, conf/ copied), with
#                                       free loopback ports and run directories in its conf
#   falcon_install HOME JAR SO          README's install: copy the two files into lib/, add the lines
#   falcon_install_bundle HOME TGZ      the same from a release bundle (checksums verified)
#   cluster_start_jobmanager HOME       StandaloneSessionClusterEntrypoint, waits for REST
#   cluster_start_taskmanager HOME I    TaskManagerRunner number I, waits for its registration
#   cluster_stop                        stops every process started here (also on EXIT via trap)
#   flink_cli HOME ARGS...              org.apache.flink.client.cli.CliFrontend (bin/flink)
#   rest_get / job_* / stop_with_savepoint    the REST calls the tests need
#
# Everything binds to 127.0.0.1; processes are tracked by PID and only those are stopped.
# HOME arguments may be relative; processes get absolute paths.

FLINK_VERSION="${FLINK_VERSION:-1.16.3}"
E2E_DIR="$FALCON_ROOT/tests/e2e"
E2E_BUILD="${E2E_BUILD:-$FALCON_ROOT/build/e2e}"
FLINK_DIST="$E2E_BUILD/flink-$FLINK_VERSION"

# PIDs of the JVMs this shell started (JobManager first); cluster_stop ends exactly these.
E2E_PIDS=()
JM_PID=""
TM_PID=""

# -- assembly ---------------------------------------------------------------------------------

# What the cached installation depends on: a change to any of these re-assembles it.
_flink_dist_key() {
  cat "$E2E_DIR/flink-dist/pom.xml" "$E2E_DIR"/flink-dist/conf/* | sha256sum | cut -c1-16
}

# Assembles (once per key) $FLINK_DIST: lib/ from Maven Central via maven-dependency-plugin,
# conf/ from tests/e2e/flink-dist/conf, empty plugins/ and log/.
flink_assemble() {
  local key
  key="$(FLINK_VERSION="$FLINK_VERSION" _flink_dist_key)"
  if [[ -f "$FLINK_DIST/.assembled" && "$(cat "$FLINK_DIST/.assembled")" == "$key" ]]; then
    return 0
  fi
  log "assembling Flink $FLINK_VERSION from Maven Central into $FLINK_DIST"
  local tmp="$FLINK_DIST.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp/lib" "$tmp/conf" "$tmp/plugins" "$tmp/log"
  mvn -B -ntp -q -f "$E2E_DIR/flink-dist/pom.xml" \
    -Dflink.version="$FLINK_VERSION" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp/lib" \
    || die "could not fetch the Flink $FLINK_VERSION artifacts"
  cp "$E2E_DIR"/flink-dist/conf/* "$tmp/conf/"
  echo "$key" >"$tmp/.assembled"
  rm -rf "$FLINK_DIST"
  mv "$tmp" "$FLINK_DIST"
  echo "assembled: $(find "$FLINK_DIST/lib" -name '*.jar' | wc -l) jars in $FLINK_DIST/lib"
}

# -- configuration, as flink-dist's bin/config.sh reads it -----------------------------------

# The last value of KEY in HOME/conf/flink-conf.yaml (config.sh readFromConfig), or DEFAULT.
flink_conf_get() {
  local home="$1" key="$2" default="${3:-}" value
  value="$(grep "^[ ]*${key//./\\.}[ ]*:" "$home/conf/flink-conf.yaml" | cut -d ':' -f2- \
    | sed 's/^ *//;s/ *$//' | tail -n 1 || true)"
  echo "${value:-$default}"
}

# Appends (or overrides, since the last value wins) KEY: VALUE.
flink_conf_set() {
  printf '%s: %s\n' "$2" "$3" >>"$1/conf/flink-conf.yaml"
}

# A free TCP port on 127.0.0.1.
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The classpath config.sh's constructFlinkClassPath builds: every lib/ jar in sorted order,
# flink-dist (absent here: its contents are separate jars) last.
flink_classpath() {
  local home="$1"
  LC_ALL=C find "$home/lib" ! -type d -name '*.jar' | LC_ALL=C sort | paste -sd: -
}

# The JVM options every Flink JVM gets (config.sh): -XX:+IgnoreUnrecognizedVMOptions, then
# env.java.opts without surrounding quotes, then the role's own env.java.opts.<role>.
flink_java_opts() {
  local home="$1" role="$2" opts role_opts
  opts="$(flink_conf_get "$home" env.java.opts)"
  opts="${opts#\"}"; opts="${opts%\"}"
  role_opts="$(flink_conf_get "$home" "env.java.opts.$role")"
  role_opts="${role_opts#\"}"; role_opts="${role_opts%\"}"
  echo "-XX:+IgnoreUnrecognizedVMOptions $opts $role_opts"
}

java_major_version() {
  java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' \
    | sed 's/^1\.//'
}

# -- installation -----------------------------------------------------------------------------

# A fresh installation at HOME from the cached one: lib/ hard-linked (we only ever add or remove
# files there, never write into one), conf/ copied, and for this run: free loopback ports, the
# checkpoint and savepoint directories, and on Java 17+ the module flags the project's
# conf/flink-conf.yaml lists (a stock Flink 1.16 needs them on Java 17 with or without Falcon).
flink_install() {
  local home="$1"
  rm -rf "$home"
  mkdir -p "$home/plugins" "$home/log" "$home/data"
  home="$(readlink -f "$home")"
  cp -al "$FLINK_DIST/lib" "$home/lib"
  cp -r "$FLINK_DIST/conf" "$home/conf"
  {
    echo
    echo "# -- this run (tests/e2e/lib/flink.sh) --"
    echo "rest.port: $(free_port)"
    echo "jobmanager.rpc.port: $(free_port)"
    echo "blob.server.port: $(free_port)"
    echo "state.checkpoints.dir: file://$home/data/checkpoints"
    echo "state.savepoints.dir: file://$home/data/savepoints"
    echo "io.tmp.dirs: $home/data/tmp"
    if (( $(java_major_version) >= 17 )); then
      echo "# Java $(java_major_version): the module flags from the project's conf/flink-conf.yaml"
      grep -m1 '^# env.java.opts:' "$FALCON_ROOT/conf/flink-conf.yaml" | sed 's/^# //'
    fi
  } >>"$home/conf/flink-conf.yaml"
  mkdir -p "$home/data/tmp"
}

# Installs Falcon exactly as README.md and docs/deployment.md tell users: copy the jar and
# libfalcon_jni.so into lib/ and add the lines of the project's conf/flink-conf.yaml.
# SO may be empty: then only the jar is installed (the "library missing" scenario).
falcon_install() {
  local home="$1" jar="$2" so="${3:-}"
  cp "$jar" "$home/lib/"
  if [[ -n "$so" ]]; then cp "$so" "$home/lib/"; fi
  {
    echo
    cat "$FALCON_ROOT/conf/flink-conf.yaml"
  } >>"$home/conf/flink-conf.yaml"
}

# The install of a release bundle (dist/falcon-<version>-flink-<minor>.tar.gz), as its
# INSTALL.txt says: the jar and this machine's libfalcon_jni.so into lib/, the bundle's
# configuration lines appended (this installation's conf file is the legacy flink-conf.yaml,
# which every minor still reads when there is no config.yaml). Without SO=yes the library is
# left out.
falcon_install_bundle() {
  local home="$1" bundle="$2" with_native="${3:-yes}" unpacked
  unpacked="$(mktemp -d)"
  tar -xzf "$bundle" -C "$unpacked" || return 1
  local dir
  dir="$(find "$unpacked" -mindepth 1 -maxdepth 1 -type d | head -n1)"
  (cd "$dir" && sha256sum --quiet -c SHA256SUMS) || { echo "bundle checksums do not match" >&2; return 1; }
  cp "$dir"/lib/falcon-flink-*.jar "$home/lib/"
  if [[ "$with_native" == yes ]]; then
    cp "$dir/native/linux-$(uname -m)/libfalcon_jni.so" "$home/lib/"
  fi
  { echo; cat "$dir/conf/flink-conf.yaml"; } >>"$home/conf/flink-conf.yaml"
  rm -rf "$unpacked"
}

# -- processes ----------------------------------------------------------------------------------

# Runs BashJavaUtils CMD (GET_JM_RESOURCE_PARAMS / GET_TM_RESOURCE_PARAMS) as config.sh does and
# prints its two result lines: the JVM memory flags, then the -D dynamic properties.
_bash_java_utils() {
  local home="$1" cmd="$2" output results
  output="$(java -Dlog4j.configurationFile="file:$home/conf/log4j-console.properties" \
    -classpath "$(flink_classpath "$home")" org.apache.flink.runtime.util.bash.BashJavaUtils \
    "$cmd" --configDir "$home/conf" 2>&1)" || { echo "$output" >&2; die "BashJavaUtils $cmd failed"; }
  results="$(grep '^BASH_JAVA_UTILS_EXEC_RESULT:' <<<"$output" | sed 's/^BASH_JAVA_UTILS_EXEC_RESULT://')"
  [[ "$(wc -l <<<"$results")" == 2 ]] || { echo "$output" >&2; die "BashJavaUtils $cmd: unexpected output"; }
  echo "$results"
}

# Starts a Flink JVM in the background like flink-daemon.sh: memory flags, env.java.opts, log
# settings, the lib/ classpath; stdout/stderr to log/NAME.out. Sets LAST_PID.
_flink_daemon() {
  local home="$1" name="$2" role="$3" class="$4" jvm_params="$5"; shift 5
  home="$(readlink -f "$home")"
  local -a opts
  read -r -a opts <<<"$jvm_params $(flink_java_opts "$home" "$role")"
  (
    cd "$home"
    export FLINK_CONF_DIR="$home/conf" FLINK_LIB_DIR="$home/lib" FLINK_PLUGINS_DIR="$home/plugins"
    exec java "${opts[@]}" \
      -Dlog.file="$home/log/$name.log" \
      -Dlog4j.configuration="file:$home/conf/log4j.properties" \
      -Dlog4j.configurationFile="file:$home/conf/log4j.properties" \
      -classpath "$(flink_classpath "$home")" "$class" "$@" \
      >"$home/log/$name.out" 2>&1 </dev/null
  ) &
  LAST_PID=$!
  E2E_PIDS+=("$LAST_PID")
}

rest_url() { echo "http://127.0.0.1:$(flink_conf_get "$1" rest.port)"; }

# GET a REST path and print a Python expression over the JSON answer `j` (lib/rest.py).
rest_get() {
  local home="$1" path="$2" expr="${3:-j}"
  python3 "$E2E_DIR/lib/rest.py" "$(rest_url "$home")$path" "$expr"
}

# Waits up to SECONDS for CONDITION (a command) to succeed.
wait_for() {
  local seconds="$1" what="$2"; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if (( SECONDS >= deadline )); then
      echo "timed out after ${seconds}s waiting for: $what" >&2
      return 1
    fi
    sleep 0.5
  done
}

_alive() { kill -0 "$1" 2>/dev/null; }

cluster_start_jobmanager() {
  local home params
  home="$(readlink -f "$1")"
  params="$(_bash_java_utils "$home" GET_JM_RESOURCE_PARAMS)"
  local -a dynamic
  read -r -a dynamic <<<"$(tail -n1 <<<"$params")"
  _flink_daemon "$home" flink-jobmanager jobmanager \
    org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint \
    "$(head -n1 <<<"$params")" \
    --configDir "$home/conf" --executionMode cluster "${dynamic[@]}"
  JM_PID="$LAST_PID"
  wait_for 90 "JobManager REST on $(rest_url "$home")" \
    rest_get "$home" /overview \
    || { tail -n 30 "$home/log/flink-jobmanager.log" "$home/log/flink-jobmanager.out" >&2; return 1; }
}

_tm_registered() {
  [[ "$(rest_get "$1" /taskmanagers "sum(1 for t in j['taskmanagers'] if t['id'] == '$2')")" == 1 ]]
}

# Starts TaskManager number INDEX (log: log/flink-taskexecutor-INDEX.log, resource id
# taskmanager-INDEX) and waits until the ResourceManager lists it. Sets TM_PID.
cluster_start_taskmanager() {
  local home index="$2" params
  home="$(readlink -f "$1")"
  params="$(_bash_java_utils "$home" GET_TM_RESOURCE_PARAMS)"
  local -a dynamic
  read -r -a dynamic <<<"$(tail -n1 <<<"$params")"
  _flink_daemon "$home" "flink-taskexecutor-$index" taskmanager \
    org.apache.flink.runtime.taskexecutor.TaskManagerRunner \
    "$(head -n1 <<<"$params")" \
    --configDir "$home/conf" "${dynamic[@]}" -D "taskmanager.resource-id=taskmanager-$index"
  TM_PID="$LAST_PID"
  wait_for 90 "TaskManager $index registration" _tm_registered "$home" "taskmanager-$index" \
    || { tail -n 30 "$home/log/flink-taskexecutor-$index.log" "$home/log/flink-taskexecutor-$index.out" >&2; return 1; }
}

# kill -9 the current TaskManager (no shutdown hooks, like a crash) and wait until it is gone.
cluster_kill_taskmanager() {
  local pid="$TM_PID"
  kill -9 "$pid"
  wait "$pid" 2>/dev/null || true
}

# Stops every JVM started by this shell: TaskManagers, then the JobManager; SIGTERM, then
# SIGKILL after 15 s. Idempotent; run.sh calls it from its EXIT trap.
cluster_stop() {
  local pid i
  for (( i = ${#E2E_PIDS[@]} - 1; i >= 0; i-- )); do
    pid="${E2E_PIDS[$i]}"
    _alive "$pid" && kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${E2E_PIDS[@]}"; do
    for _ in $(seq 1 30); do _alive "$pid" || break; sleep 0.5; done
    _alive "$pid" && kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  E2E_PIDS=()
  JM_PID=""
  TM_PID=""
}

# -- client --------------------------------------------------------------------------------------

# bin/flink: CliFrontend with the client's JVM options and log4j-cli.properties.
flink_cli() {
  local home; home="$(readlink -f "$1")"; shift
  local -a opts
  read -r -a opts <<<"$(flink_java_opts "$home" client)"
  (
    cd "$home"
    export FLINK_CONF_DIR="$home/conf" FLINK_LIB_DIR="$home/lib" FLINK_PLUGINS_DIR="$home/plugins"
    java "${opts[@]}" \
      -Dlog.file="$home/log/flink-client.log" \
      -Dlog4j.configurationFile="file:$home/conf/log4j-cli.properties" \
      -classpath "$(flink_classpath "$home")" org.apache.flink.client.cli.CliFrontend "$@"
  )
}

# Submits JAR detached with ARGS (CLI options first, then "--", then program arguments) and
# prints the JobID.
#   flink_submit HOME JAR [CLI options...] -- [program args...]
flink_submit() {
  local home="$1" jar; jar="$(readlink -f "$2")"; shift 2
  local -a cli=()
  while (( $# )) && [[ "$1" != "--" ]]; do cli+=("$1"); shift; done
  (( $# )) && shift
  local output
  output="$(flink_cli "$home" run -d "${cli[@]}" "$jar" "$@" 2>&1)" \
    || { echo "$output" | tail -n 40 >&2; return 1; }
  local id
  id="$(grep -o 'JobID [0-9a-f]\{32\}' <<<"$output" | tail -n1 | cut -d' ' -f2)"
  [[ -n "$id" ]] || { echo "$output" | tail -n 40 >&2; return 1; }
  echo "$id"
}

job_state() { rest_get "$1" "/jobs/$2" "j['state']"; }
_job_in_state() { [[ "$(job_state "$1" "$2")" == "$3" ]]; }
_job_in_end_state() {
  case "$(job_state "$1" "$2")" in FINISHED|FAILED|CANCELED) return 0 ;; *) return 1 ;; esac
}

# Waits until job ID reaches a terminal state (FINISHED/FAILED/CANCELED), prints that state.
wait_job_end() {
  local home="$1" id="$2" seconds="${3:-120}"
  wait_for "$seconds" "job $id to end" _job_in_end_state "$home" "$id" || true
  job_state "$home" "$id"
}

job_completed_checkpoints() { rest_get "$1" "/jobs/$2/checkpoints" "j['counts']['completed']"; }
_checkpoints_at_least() { (( $(job_completed_checkpoints "$1" "$2") >= $3 )); }

# Waits until job ID has completed at least N checkpoints (restored ones are not counted);
# gives up early when the job has ended.
wait_checkpoints() {
  local home="$1" id="$2" n="$3" deadline=$((SECONDS + ${4:-90}))
  until _checkpoints_at_least "$home" "$id" "$n" 2>/dev/null; do
    if _job_in_end_state "$home" "$id" 2>/dev/null; then
      echo "job $id ended $(job_state "$home" "$id") before $n completed checkpoints" >&2
      return 1
    fi
    if (( SECONDS >= deadline )); then
      echo "timed out waiting for job $id: $n completed checkpoints" >&2
      return 1
    fi
    sleep 0.5
  done
}

# The state backend the JobManager reports for job ID (class simple name).
job_state_backend() { rest_get "$1" "/jobs/$2/checkpoints/config" "j['state_backend']"; }

# Stop-with-savepoint (no drain) through REST; prints the savepoint path.
stop_with_savepoint() {
  local home="$1" id="$2" trigger status
  trigger="$(python3 "$E2E_DIR/lib/rest.py" "$(rest_url "$home")/jobs/$id/stop" "j['request-id']" \
    --post "{\"targetDirectory\": \"$(flink_conf_get "$home" state.savepoints.dir)\", \"drain\": false}")" \
    || return 1
  local deadline=$((SECONDS + 90))
  while (( SECONDS < deadline )); do
    status="$(rest_get "$home" "/jobs/$id/savepoints/$trigger" "j['status']['id']")" || return 1
    if [[ "$status" == COMPLETED ]]; then
      local location
      location="$(rest_get "$home" "/jobs/$id/savepoints/$trigger" "j['operation'].get('location')")"
      if [[ -z "$location" ]]; then  # failed: the operation holds the cause
        rest_get "$home" "/jobs/$id/savepoints/$trigger" "j['operation']" >&2
        return 1
      fi
      echo "$location"
      return 0
    fi
    sleep 0.5
  done
  echo "stop-with-savepoint of $id timed out" >&2
  return 1
}

# Cancels job ID (bin/flink cancel) and waits for CANCELED.
job_cancel() {
  flink_cli "$1" cancel "$2" >/dev/null || return 1
  [[ "$(wait_job_end "$1" "$2" 60)" == CANCELED ]]
}

# The path of job ID's latest completed checkpoint (retained when the job is cancelled under
# RETAIN_ON_CANCELLATION).
latest_checkpoint_path() {
  rest_get "$1" "/jobs/$2/checkpoints" "(j['latest']['completed'] or {}).get('external_path')"
}

# Resident set size of PID in bytes (0 when gone).
rss_bytes() {
  local kb
  kb="$(awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || true)"
  echo $(( ${kb:-0} * 1024 ))
}

# Flink memory sizes (e.g. 1600m, 2g, 1 gb) in bytes.
to_bytes() {
  python3 - "$1" <<'EOF'
import re, sys
m = re.fullmatch(r'\s*(\d+)\s*([a-zA-Z]*)\s*', sys.argv[1])
units = {'': 1, 'b': 1, 'bytes': 1, 'k': 1 << 10, 'kb': 1 << 10, 'kibibytes': 1 << 10,
         'm': 1 << 20, 'mb': 1 << 20, 'mebibytes': 1 << 20,
         'g': 1 << 30, 'gb': 1 << 30, 'gibibytes': 1 << 30, 't': 1 << 40, 'tb': 1 << 40}
print(int(m.group(1)) * units[m.group(2).lower()])
EOF
}
