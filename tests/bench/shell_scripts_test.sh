#!/usr/bin/env bash
# Every shell script of the repository parses (bash -n), the recorded
# commands under bench/results included: they are kept to be run again.
#   tests/bench/shell_scripts_test.sh REPO_ROOT
set -uo pipefail
root="$1"
count=0 failed=0
while IFS= read -r -d '' script; do
  count=$((count + 1))
  if ! out=$(bash -n "$script" 2>&1); then
    echo "${script#"$root"/}: $out"
    failed=$((failed + 1))
  fi
done < <(find "$root/bench" "$root/scripts" "$root/.ci" -type f \( -name '*.sh' -o -name run \) -print0)
echo "$count scripts, $failed that do not parse"
((count > 0 && failed == 0))
