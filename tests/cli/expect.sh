#!/usr/bin/env bash
# expect.sh CODE REGEX COMMAND...: run COMMAND, require exit code CODE
# ("nonzero" for any failure) and output (stdout+stderr) matching REGEX.
set -u
want=$1 pattern=$2
shift 2
out=$("$@" 2>&1)
code=$?
echo "$out"
echo "exit code: $code"
if [[ $want == nonzero ]]; then
  ((code != 0)) || { echo "FAIL: expected a non-zero exit code"; exit 1; }
elif ((code != want)); then
  echo "FAIL: expected exit code $want"
  exit 1
fi
grep -Eq -- "$pattern" <<<"$(tr '\n' ' ' <<<"$out")" || { echo "FAIL: output does not match: $pattern"; exit 1; }
echo "PASS"
