#!/usr/bin/env bash
# check-includes.sh - the layer rule over every #include of the C sources
# (make test runs it as the ctest test check_includes; docs/layers.md says
# why the table is what it is).
#   check-includes.sh [ROOT]      ROOT: a source tree (default: this one)
# Reads src/**, include/pto/**, python/pypto/*.c and tools/** under ROOT.
# Exit status 0 when every include follows the table, 1 with one line per
# breach (FILE:LINE: what and why), 2 on a usage error.
#
# Layers, top to bottom: python/pypto, tools -> src/compiler -> src/exec ->
# src/tile -> src/runtime; src/base under all; include/pto the public API.
# A file may include any header of its own layer, and of another layer
# only what this table lists (a header of a layer above, or a private
# header of another layer, is a breach):
#
#   layer     folder          may also include
#   base      src/base        -
#   pto       include/pto     -
#   runtime   src/runtime     base/*, pto/*
#   tile      src/tile        base/*, pto/*
#   exec      src/exec        base/*, pto/*, tile/tile.h, tile/dist_ops.h, the runtime's
#                             runtime/trusted.h (the executor's submit; it includes pto/* only)
#                             runtime/comm.h (distributed mode's transport and windows)
#                             and runtime/comm_stats.h (its counters),
#                             and the compiler's leaves compiler/types.h (with compiler/ops.h),
#                             compiler/program.h, compiler/scalar.h (they include no IR)
#   compiler  src/compiler    base/*, pto/*
#   python    python/pypto    pto/*
#   tools     tools           base/*, pto/*, and headers of the tool's own
#                             folder by bare name ("stats_file.h")
#
# Public headers by layer: base: all of src/base; runtime: include/pto,
# and to exec alone runtime/trusted.h, runtime/comm.h and runtime/comm_stats.h (the rest of src/runtime is private); tile: tile/tile.h
# and tile/dist_ops.h (tile_int.h is
# private); exec: none (its API is pto/run.h); compiler: pto/compile.h,
# and to exec alone its three leaves.  An include names its header by its
# layer path ("exec/scalar.h"), in quotes or angle brackets alike; a bare
# name or a "../" path in src/, include/ or python/ is a breach too.
set -uo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root/src" ] || { echo "check-includes.sh: $root has no src/" >&2; exit 2; }
cd "$root" || exit 2

# allowed LAYER HEADER: 0 when LAYER may include HEADER (a layer path).
allowed() {
    local layer=$1 h=$2 own
    case $layer in python) own=- ;; tools) own=- ;; *) own=$layer ;; esac
    case $h in "$own"/*) return 0 ;; esac
    case $layer:$h in
    runtime:base/* | runtime:pto/*) return 0 ;;
    tile:base/* | tile:pto/*) return 0 ;;
    exec:base/* | exec:pto/* | exec:tile/tile.h | exec:tile/dist_ops.h | exec:runtime/trusted.h | exec:runtime/comm.h | exec:runtime/comm_stats.h) return 0 ;;
    exec:compiler/types.h | exec:compiler/ops.h | exec:compiler/program.h | exec:compiler/scalar.h) return 0 ;;
    compiler:base/* | compiler:pto/*) return 0 ;;
    python:pto/*) return 0 ;;
    tools:base/* | tools:pto/*) return 0 ;;
    esac
    return 1
}

# What LAYER reads of other layers, for the message.
reads() {
    case $1 in
    base | pto) reads="nothing" ;;
    runtime | tile | compiler | tools) reads="base/*, pto/*" ;;
    exec) reads="base/*, pto/*, tile/tile.h, tile/dist_ops.h, runtime/trusted.h, runtime/comm.h, runtime/comm_stats.h, compiler/types.h, compiler/program.h, compiler/scalar.h" ;;
    python) reads="pto/*" ;;
    esac
}

# A layer's height in the drawing (base and the public API under all).
rank() {
    case $1 in
    base | pto) rank=0 ;; runtime) rank=1 ;; tile) rank=2 ;; exec) rank=3 ;; compiler) rank=4 ;; *) rank=5 ;;
    esac
}

layer_of() {
    case $1 in
    src/base/*) layer=base ;;
    src/runtime/*) layer=runtime ;;
    src/tile/*) layer=tile ;;
    src/exec/*) layer=exec ;;
    src/compiler/*) layer=compiler ;;
    include/pto/*) layer=pto ;;
    python/pypto/*) layer=python ;;
    tools/*) layer=tools ;;
    *) layer=- ;;
    esac
}

breach() {
    echo "$f:$line: $1"
    bad=$((bad + 1))
}

files=$( { find src include/pto tools -type f \( -name '*.c' -o -name '*.h' \) 2>/dev/null
           ls python/pypto/*.c 2>/dev/null; } | sort)
bad=0 n=0
# FILE<TAB>LINE<TAB>QUOTE<TAB>HEADER for every #include "..." and #include <...>
while IFS=$'\t' read -r f line q h; do
    layer_of "$f"
    [ "$layer" = - ] && continue
    case $q:$h in
    '<':base/* | '<':runtime/* | '<':tile/* | '<':exec/* | '<':compiler/* | '<':pto/* | '<':dist/*) ;;
    '<':*) continue ;; # a system header
    esac
    n=$((n + 1))
    if [ "$layer" = tools ] && [ "${h#*/}" = "$h" ]; then
        [ -f "${f%/*}/$h" ] || breach "\"$h\" is no header of this tool's folder"
        continue
    fi
    case $h in
    ../* | */../* | ./*) breach "\"$h\": name the header by its layer path (\"exec/scalar.h\"), not relative to this file"; continue ;;
    */*) ;;
    *) breach "\"$h\": name the header by its layer path (\"$layer/$h\")"; continue ;;
    esac
    allowed "$layer" "$h" && continue
    hl=${h%%/*}
    rank "$hl"; up=$rank
    rank "$layer"
    if [ "$up" -gt "$rank" ]; then why="the $hl layer is above $layer"; else why="not a header $hl offers $layer"; fi
    reads "$layer"
    breach "$layer may not include $h: $why ($layer reads $reads of other layers)"
done < <([ -n "$files" ] && awk '{
    if (!match($0, /^[ \t]*#[ \t]*include[ \t]*["<][^">]+[">]/)) next
    s = substr($0, RSTART, RLENGTH)
    sub(/^[ \t]*#[ \t]*include[ \t]*/, "", s)
    print FILENAME "\t" FNR "\t" substr(s, 1, 1) "\t" substr(s, 2, length(s) - 2)
}' $files)
nfiles=$(echo "$files" | wc -l)

if [ "$bad" -gt 0 ]; then
    echo "check-includes: $bad include(s) break the layer rule"
    exit 1
fi
echo "check-includes: $n includes in $nfiles files follow the layer rule"
exit 0
