#!/usr/bin/env bash
# Mutation pass over the runtime's capacity checks and ordering rules
# (make mutate).
#   mutate.sh [WORK_DIR] [JOBS] [ID...]
# Copies the working tree (tracked and untracked, not ignored files) to
# WORK_DIR/tree, builds it once in WORK_DIR/build, checks that the tests
# the mutants name pass unmutated, then for each row of scripts/mutants.tsv
# (or only the IDs given): replaces the row's text (which must occur
# exactly once in its file) in the copy, rebuilds the tests, runs the test
# executables the row names (ctest labels) until the first failure, and
# restores the file.  A mutant is killed when a test fails or times out.
# Prints: id, file:line, mutant, killed-by (or SURVIVED); the table also
# goes to WORK_DIR/mutants.txt.  Bounded: each ctest run is cut at
# MUTATE_TEST_TIMEOUT seconds per test (default 60) and the group at
# MUTATE_GROUP_TIMEOUT (default 600).  Exit status 1 if a mutant survived
# or a row no longer applies.
set -uo pipefail

work=${1:-build-mut}
jobs=${2:-$(nproc)}
shift 2 2>/dev/null || shift $#
only=("$@")
root=$(cd "$(dirname "$0")/.." && pwd)
table=$root/scripts/mutants.tsv
test_timeout=${MUTATE_TEST_TIMEOUT:-60}
group_timeout=${MUTATE_GROUP_TIMEOUT:-600}
case $work in /*) ;; *) work=$root/$work ;; esac
tree=$work/tree
build=$work/build

# Test groups a row may name with @: the runtime's C tests.
group_runtime="test_config test_ring test_pool test_tensormap test_overlap test_task_states \
test_ready_queue test_api_edges test_api_misuse test_e2e_capacity test_e2e_backpressure \
test_e2e_deps test_e2e_manual test_e2e_stall test_verdicts test_warnings test_scope_stats \
test_scope_stats_heap test_runtime_limits_exact test_runtime_ordering_rules test_tensormap_run"

expand_tests() { # "a @runtime b" -> executable names, one per line, that exist
    for t in $1; do
        case $t in
        @runtime) for g in $group_runtime; do echo "$g"; done ;;
        *) echo "$t" ;;
        esac
    done | while read -r t; do [ -f "$tree/tests/c/$t.c" ] && echo "$t"; done | sort -u
}

mkdir -p "$tree"
(cd "$root" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$tree" || exit 1
# The copy restores every file with its own time, which can be older than
# the object a mutant of it left (the last mutant of a run, or a run cut
# short): every file a run ever mutated is rebuilt.
if [ -f "$work/mutated" ]; then
    (cd "$tree" && sort -u "$work/mutated" | while read -r f; do [ -f "$f" ] && touch "$f"; done)
fi
cmake -S "$tree" -B "$build" >/dev/null || exit 1

rows=()
while IFS=$'\t' read -r id file orig repl tests; do
    case $id in ''|'#'*) continue ;; esac
    if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$id"; then continue; fi
    rows+=("$id"$'\t'"$file"$'\t'"$orig"$'\t'"$repl"$'\t'"$tests")
done <"$table"

all_tests=$(for r in "${rows[@]}"; do IFS=$'\t' read -r _ _ _ _ t <<<"$r"; expand_tests "$t"; done | sort -u)
label_regex() { echo "^($(echo "$1" | paste -sd'|'))\$"; }

echo "building $build (unmutated) ..."
cmake --build "$build" -j "$jobs" --target $all_tests >"$work/build.log" 2>&1 || {
    tail -n 30 "$work/build.log"; echo "mutate: the unmutated tree does not build"; exit 1; }
echo "baseline: the named tests pass unmutated ..."
if ! (cd "$build" && timeout "$group_timeout" ctest -j "$jobs" --timeout "$test_timeout" \
        -L "$(label_regex "$all_tests")" >"$work/baseline.log" 2>&1); then
    grep -A20 'tests FAILED' "$work/baseline.log"; echo "mutate: a test fails unmutated"; exit 1
fi

# Replaces the one occurrence of orig in file with repl.
apply_mutant() { # file orig repl -> prints the 1-based line, or fails
    /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import sys
path, orig, repl = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
if text.count(orig) != 1:
    sys.exit("%s: the text occurs %d times, not once: %s" % (path, text.count(orig), orig))
print(text[:text.index(orig)].count("\n") + 1)
open(path, "w").write(text.replace(orig, repl))
PY
}

survived=0
out=$work/mutants.txt
printf '%-4s %-34s %-60s %s\n' id file:line mutant killed-by | tee "$out"
for r in "${rows[@]}"; do
    IFS=$'\t' read -r id file orig repl tests <<<"$r"
    src=$tree/$file
    cp -p "$src" "$work/orig.c"
    echo "$file" >>"$work/mutated"
    if ! line=$(apply_mutant "$src" "$orig" "$repl" 2>"$work/apply.err"); then
        printf '%-4s %-34s %-60s %s\n' "$id" "$file" "$(cat "$work/apply.err")" "STALE ROW" | tee -a "$out"
            survived=1
        continue
    fi
    exes=$(expand_tests "$tests")
    desc="'$orig' -> '$repl'"
    [ ${#desc} -gt 60 ] && desc="${desc:0:57}..."
    if ! cmake --build "$build" -j "$jobs" --target $exes >"$work/mutant-build.log" 2>&1; then
        verdict="(does not compile)"
    else
        (cd "$build" && timeout "$group_timeout" ctest -j "$jobs" --timeout "$test_timeout" \
            --stop-on-failure -L "$(label_regex "$exes")" >"$work/mutant-test.log" 2>&1)
        rc=$?
        # The first test to fail, in completion order (--stop-on-failure
        # cuts the others short, and they would read as failed too).
        killers=$(grep -m1 -E 'Test +#[0-9]+: test_[a-z0-9_]+ .*\*\*\*' "$work/mutant-test.log" |
                  sed -E 's/.*Test +#[0-9]+: (test_[a-z0-9_]+) .*\*\*\*([A-Za-z]+).*/\1 (\2)/')
        if [ $rc -eq 0 ]; then verdict=SURVIVED; survived=1
        elif [ $rc -eq 124 ]; then verdict="(group timeout)"
        else verdict=${killers:-"(ctest rc $rc)"}
        fi
    fi
    cp -p "$work/orig.c" "$src"
    touch "$src"
    printf '%-4s %-34s %-60s %s\n' "$id" "$file:$line" "$desc" "$verdict" | tee -a "$out"
done
exit $survived
