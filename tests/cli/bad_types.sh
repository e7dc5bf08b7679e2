#!/usr/bin/env bash
# bad_types.sh HALOEX CASE: every option of every command that takes a number
# is given a word, and every one of them must fail the same way: exit status 2
# and one line "haloex: error: <command>: <option> ...", before any work.
# The options are read from each command's --help, so a new option is
# covered without touching this test.
set -u
(($# == 2)) || { echo "usage: bad_types.sh HALOEX CASE" >&2; exit 2; }
haloex=$1 case=$2
commands=("bench halo" "bench pack" "bench lb" "bench stencil" "bench pingpong" "bench stream" "bench clock"
  "bench coll" "bench overlap" "bench monitor" "bench io" "stencil" "lb")
checked=0 failed=0
for c in "${commands[@]}"; do
  read -r -a words <<<"$c"
  extra=()
  [[ $c == lb ]] && extra=("$case")
  # Option lines of --help: "  -i,--steps,--iterations INT:..." -> the first
  # long name is given the word; the message may name any of the line's names.
  mapfile -t lines < <("$haloex" "${words[@]}" --help | grep -E '^ +(-[a-zA-Z],)*--[a-z-]+.* (INT|UINT|FLOAT|NUMBER)' |
    sed -E 's/^ +//; s/ .*//')
  ((${#lines[@]} > 0)) || [[ $c == lb ]] || { echo "FAIL: no numeric option found in '$c --help'"; failed=1; }
  for names in "${lines[@]}"; do
    o=$(tr ',' '\n' <<<"$names" | grep -E -m1 '^--')
    any=$(tr ',' '|' <<<"$names")
    out=$("$haloex" "${words[@]}" "${extra[@]}" "$o" notanumber 2>&1)
    code=$?
    n=$(grep -c . <<<"$out")
    if ((code != 2)) || ((n != 1)) || ! grep -Eq -- "^haloex: error: haloex $c: .*($any)\b" <<<"$out"; then
      echo "FAIL: '$c $o notanumber' exited $code with $n lines:"
      echo "$out" | head -5
      failed=1
    fi
    checked=$((checked + 1))
  done
done
echo "checked $checked numeric options"
((checked >= 40)) || { echo "FAIL: only $checked numeric options found"; exit 1; }
((failed == 0)) && echo PASS
exit $failed
