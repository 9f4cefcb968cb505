# Stages of scripts/test, each timed, some with a budget; sourced, not run.
#   stage NAME BUDGET_SECONDS COMMAND...   runs COMMAND as the stage NAME
#                                          (BUDGET 0: no budget of its own)
#   stage_table                            prints every stage's wall time
# A stage whose command fails, or which ran past its budget, ends the run
# with a message naming it, after the table of the stages so far.

declare -a stage_names=() stage_seconds=() stage_budgets=() stage_verdicts=()
stages_started=$(date +%s)

format_seconds() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

stage_table() {
  local total=$(( $(date +%s) - stages_started ))
  printf '\n%-58s %9s %9s  %s\n' "stage" "wall" "budget" ""
  local i
  for i in "${!stage_names[@]}"; do
    local budget="-"
    [ "${stage_budgets[$i]}" -gt 0 ] && budget="$(format_seconds "${stage_budgets[$i]}")"
    printf '%-58s %9s %9s  %s\n' "${stage_names[$i]}" "$(format_seconds "${stage_seconds[$i]}")" "$budget" "${stage_verdicts[$i]}"
  done
  printf '%-58s %9s\n' "total" "$(format_seconds "$total")"
}

stage() {
  local name="$1" budget="$2"
  shift 2
  if ! [[ "$budget" =~ ^[0-9]+$ ]]; then
    printf 'scripts/test: the budget of stage "%s" is "%s": give whole seconds (0: none)\n' "$name" "$budget" >&2
    exit 2
  fi
  printf '\n=== %s\n' "$name"
  local started status
  started=$(date +%s)
  # In a subshell of its own, with errexit on: run on the left of || (or
  # in an if), bash would ignore set -e inside a function, and a stage
  # made of several commands would be judged by its last alone.
  set +e
  (
    set -e
    "$@"
  )
  status=$?
  set -e
  local seconds=$(( $(date +%s) - started ))
  stage_names+=("$name")
  stage_seconds+=("$seconds")
  stage_budgets+=("$budget")
  if [ "$status" -ne 0 ]; then
    stage_verdicts+=("FAILED (exit $status)")
    stage_table
    printf '\nscripts/test: stage "%s" failed (exit %d)\n' "$name" "$status" >&2
    exit "$status"
  fi
  if [ "$budget" -gt 0 ] && [ "$seconds" -gt "$budget" ]; then
    stage_verdicts+=("OVER BUDGET")
    stage_table
    printf '\nscripts/test: stage "%s" took %s, over its budget of %s.\n' \
      "$name" "$(format_seconds "$seconds")" "$(format_seconds "$budget")" >&2
    printf 'Make room before adding tests (docs/CONTRIBUTING.md, "The budget").\n' >&2
    exit 3
  fi
  stage_verdicts+=("ok")
}
