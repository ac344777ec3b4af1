#!/usr/bin/env bash
# Run every atheris target of rankclust's readers for a bounded time (the `make fuzz` target).
#
#   fuzz/run.sh [SECONDS_PER_TARGET]          default 60
#
# Each target starts from the seed corpus in fuzz/corpus/<target> (copied to a scratch
# directory, so the repository is not modified), uses libFuzzer's limits (-timeout per input,
# -rss_limit_mb), and prints its execution count. Findings (crashing inputs) are written to
# fuzz/findings/<target>/ and make the script exit non-zero.
set -u
cd "$(dirname "$0")/.."
SECONDS_PER_TARGET="${1:-${FUZZ_SECONDS:-60}}"
PYTHON="${PYTHON:-.venv/bin/python}"
if ! "$PYTHON" -c "import atheris" 2>/dev/null; then
    echo "atheris is not installed in $PYTHON (pip install atheris); the in-suite fallback is"
    echo "tests/reliability/test_fuzz_readers.py (hypothesis, bounded random bytes)."
    exit 2
fi
status=0
for target in preflib label_ranking_csv orderings_csv model_file; do
    work="$(mktemp -d)"
    cp -r "fuzz/corpus/$target/." "$work/"
    mkdir -p "fuzz/findings/$target"
    echo "== $target: ${SECONDS_PER_TARGET}s"
    PYTHONPATH="fuzz${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" "fuzz/fuzz_$target.py" \
        -max_total_time="$SECONDS_PER_TARGET" -timeout=20 -rss_limit_mb=3072 \
        -artifact_prefix="fuzz/findings/$target/" -print_final_stats=1 "$work" \
        >"$work/log.txt" 2>&1
    rc=$?
    grep -E "^Done|stat::number_of_executed_units|ERROR|Exception|Traceback" "$work/log.txt" | head -20
    if [ $rc -ne 0 ]; then
        echo "!! $target: finding (exit $rc); see fuzz/findings/$target/ and the log:"
        tail -40 "$work/log.txt"
        status=1
    fi
    rm -rf "$work"
done
exit $status
