#!/usr/bin/env bash
# scripts/lib/stages.sh, as scripts/test uses it: a test stage that runs past
# its budget (a planted slow ctest test) fails the run naming the stage; a
# stage of several commands fails at its first failing one; a budget that is
# not whole seconds is refused.
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
expect() {  # expect WHAT STATUS WANTED_STATUS OUTPUT PATTERN
  if [ "$2" -ne "$3" ] || ! grep -qE "$5" <<<"$4"; then
    printf 'FAIL: %s: exit %s (wanted %s), output:\n%s\n' "$1" "$2" "$3" "$4"
    failures=$((failures + 1))
  else
    printf 'ok: %s\n' "$1"
  fi
}

# A ctest project of one planted slow test.
mkdir -p "$work/planted"
printf 'add_test(planted_slow_test sleep 3)\n' >"$work/planted/CTestTestfile.cmake"
cat >"$work/run.sh" <<SCRIPT
set -euo pipefail
source "$root/scripts/lib/stages.sh"
two() { false; echo "the second command ran"; }
case "\$1" in
  slow) stage "tests (release)" 1 ctest --test-dir "$work/planted" ;;
  within) stage "tests (release)" 60 ctest --test-dir "$work/planted" ;;
  two) stage "smoke" 0 two ;;
  budget) stage "tests (release)" 1m true ;;
esac
stage_table
SCRIPT
out="$(bash "$work/run.sh" slow 2>&1)"
expect "a planted slow test puts its stage over budget" $? 3 "$out" 'stage "tests \(release\)" took 0m0[3-9]s, over its budget of 0m01s'
expect "the table marks the stage" 0 0 "$out" 'tests \(release\) +0m0[3-9]s +0m01s +OVER BUDGET'
out="$(bash "$work/run.sh" within 2>&1)"
expect "the same stage within its budget passes" $? 0 "$out" 'tests \(release\) +0m0[3-9]s +1m00s +ok'
out="$(bash "$work/run.sh" two 2>&1)"
expect "a stage of two commands fails at the first" $? 1 "$out" 'stage "smoke" failed \(exit 1\)'
if grep -q "the second command ran" <<<"$out"; then echo "FAIL: the second command ran"; failures=$((failures + 1)); fi
out="$(bash "$work/run.sh" budget 2>&1)"
expect "a budget that is not whole seconds is refused" $? 2 "$out" 'budget of stage "tests \(release\)" is "1m"'
out="$(LEGO_BUDGET_ASAN_TESTS=12min bash "$root/scripts/test" 2>&1)"
expect "scripts/test refuses a bad budget before it starts" $? 2 "$out" 'LEGO_BUDGET_ASAN_TESTS=12min: give a whole number of seconds'
exit $((failures > 0))
