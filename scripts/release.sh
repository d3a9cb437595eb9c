#!/usr/bin/env bash
# Builds the downloads: per Flink minor, what a user copies into $FLINK_HOME/lib instead of
# building from source (README "Install on a cluster", docs/deployment.md):
#
#   dist/falcon-<version>-flink-<minor>.tar.gz     one per minor, 1.16 ... 1.20
#     falcon-<version>-flink-<minor>/
#       lib/falcon-flink-<minor>-<version>.jar
#       native/linux-x86_64/libfalcon_jni.so      portable: glibc >= 2.17, C++ runtime inside
#       native/linux-aarch64/libfalcon_jni.so
#       conf/flink-conf.yaml                      the lines to add to Flink's configuration
#       LICENSE, INSTALL.txt
#       SHA256SUMS                                of every file above
#   dist/SHA256SUMS                               of the tarballs
#
#   scripts/release.sh                      # every minor
#   scripts/release.sh --flink 1.20         # only these minors (repeatable)
#   scripts/release.sh --native-dir DIR     # libraries from DIR/linux-<arch>/ instead of building
#                                           # them (the end-to-end test bundles the dev build)
#
# The tarballs are reproducible: sorted entries, fixed times and owners, gzip without a name.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

minors=()
native_dir=""
while (($#)); do
  case "$1" in
    --flink) minors+=("$2"); shift 2 ;;
    --native-dir) native_dir="$2"; shift 2 ;;
    *) die "unknown option $1 (see the header of scripts/release.sh)" ;;
  esac
done
if ((${#minors[@]} == 0)); then
  minors=()
  for pom in "$FALCON_ROOT"/java/falcon-flink-1.*/pom.xml; do
    minor="$(basename "$(dirname "$pom")")"
    minors+=("${minor#falcon-flink-}")
  done
fi

if [[ -z "$native_dir" ]]; then
  "$FALCON_ROOT/scripts/setup.sh" zig
  native_dir="$FALCON_ROOT/build/release-native"
  for arch in x86_64 aarch64; do
    log "portable native library: linux-$arch"
    build_preset "release-$arch"
    ctest --preset "release-$arch" -R jni_library_symbols --output-on-failure
    mkdir -p "$native_dir/linux-$arch"
    cp "$FALCON_ROOT/build/release-$arch/native/libfalcon_jni.so" "$native_dir/linux-$arch/"
  done
else
  "$FALCON_ROOT/scripts/setup.sh"
fi
detect_java_home

modules=()
for minor in "${minors[@]}"; do modules+=("falcon-flink-$minor"); done
log "jars: ${modules[*]}"
mvn_cmd -q package -DskipTests -pl "$(IFS=,; echo "${modules[*]}")" -am

dist="$FALCON_ROOT/dist"
mkdir -p "$dist"
tarballs=()
for minor in "${minors[@]}"; do
  name="falcon-$FALCON_VERSION-flink-$minor"
  stage="$FALCON_ROOT/build/release-stage/$name"
  rm -rf "$stage"
  mkdir -p "$stage/lib" "$stage/conf"
  cp "$FALCON_ROOT/java/falcon-flink-$minor/target/falcon-flink-$minor-$FALCON_VERSION.jar" "$stage/lib/"
  for so in "$native_dir"/linux-*/libfalcon_jni.so; do
    arch_dir="$(basename "$(dirname "$so")")"
    mkdir -p "$stage/native/$arch_dir"
    cp "$so" "$stage/native/$arch_dir/"
  done
  [[ -d "$stage/native" ]] || die "no libfalcon_jni.so under $native_dir/linux-<arch>/"
  cp "$FALCON_ROOT/conf/flink-conf.yaml" "$stage/conf/"
  cp "$FALCON_ROOT/LICENSE" "$stage/"
  # Flink 1.19 and later read conf/config.yaml (standard YAML, flat keys allowed) and fall back
  # to flink-conf.yaml only when it is absent.
  case "$minor" in
    1.16|1.17|1.18) flink_conf="flink-conf.yaml"; conf_note="" ;;
    *) flink_conf="config.yaml"
       conf_note=" (a cluster still on the legacy flink-conf.yaml takes the lines there)" ;;
  esac
  cat > "$stage/INSTALL.txt" <<TEXT
Falcon $FALCON_VERSION for Apache Flink $minor.x

On every machine that runs Flink (JobManager, TaskManagers, where bin/flink runs):

  cp lib/falcon-flink-$minor-$FALCON_VERSION.jar native/linux-\$(uname -m)/libfalcon_jni.so "\$FLINK_HOME/lib/"
  cat conf/flink-conf.yaml >> "\$FLINK_HOME/conf/$flink_conf"

Flink $minor reads conf/$flink_conf$conf_note. Restart the cluster and look for [FALCON] lines in the TaskManager log. This jar runs on
Flink $minor.x only; on another minor it refuses with a [FALCON] line naming the jar to use.
Options, metrics, troubleshooting: docs/configuration.md and docs/deployment.md in the sources.
TEXT
  (cd "$stage" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' \
    | xargs sha256sum > SHA256SUMS)
  tarball="$dist/$name.tar.gz"
  tar -C "$(dirname "$stage")" --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
    -cf - "$name" | gzip -n -9 > "$tarball"
  tarballs+=("$(basename "$tarball")")
  echo "$tarball"
done
(cd "$dist" && sha256sum "${tarballs[@]}" > SHA256SUMS && cat SHA256SUMS)
