#!/usr/bin/env bash
# test_check_includes.sh - the include-rule check (scripts/check-includes.sh)
# fails on a planted bypass.
#   test_check_includes.sh PLANT SOURCE_DIR
# Copies the sources the check reads (src, include, python/pypto/*.c,
# tools) to a temporary tree, checks that the copy passes, appends one
# include that breaks the layer rule to one file (PLANT names which), and
# expects the check to exit 1 naming that file, line and header.
set -uo pipefail

plant=$1
src=$2
case $plant in
exec_reads_the_ir) file=src/exec/scalar.c inc='#include "compiler/ir.h"' ;;
python_reads_compiler_internals) file=python/pypto/_C_run.c inc='#include "compiler/program.h"' ;;
runtime_reads_a_layer_above) file=src/runtime/ring.c inc='#include "tile/tile.h"' ;;
exec_reads_a_private_runtime_header) file=src/exec/run.c inc='#include "runtime/rt.h"' ;;
tile_reads_exec_in_angle_brackets) file=src/tile/tile.c inc='#include <exec/scalar.h>' ;;
exec_reads_the_ir_by_a_relative_path) file=src/exec/scalar.c inc='#include "../compiler/ir.h"' ;;
compiler_reads_a_private_tile_header) file=src/compiler/scalar.c inc='#include "tile/tile_int.h"' ;;
*) echo "unknown plant '$plant'" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/python/pypto"
cp -r "$src/src" "$src/include" "$src/tools" "$tmp/" || exit 1
cp "$src"/python/pypto/*.c "$tmp/python/pypto/" || exit 1

check=$src/scripts/check-includes.sh
if ! out=$("$check" "$tmp"); then
    echo "the unplanted copy fails the check:"; echo "$out"; exit 1
fi

echo "$inc" >> "$tmp/$file"
line=$(wc -l < "$tmp/$file")
header=${inc#*[\"<]}
header=${header%[\">]}
out=$("$check" "$tmp")
rc=$?
echo "$out"
[ "$rc" -eq 1 ] || { echo "FAIL: planted '$inc' in $file: exit $rc, expected 1"; exit 1; }
grep -q -F "$file:$line: " <<< "$out" || { echo "FAIL: no line names $file:$line"; exit 1; }
grep -q -F "$header" <<< "$out" || { echo "FAIL: no line names $header"; exit 1; }
echo "ok: planted '$inc' in $file:$line fails the check"
