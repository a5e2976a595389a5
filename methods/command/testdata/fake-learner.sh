#!/bin/sh
# A fake external learner for the tests of methods/command, in POSIX sh and
# awk, so that the tests need no peer installed. Modes:
#   train FILE MODEL          MODEL gets the most frequent label of FILE (LIBSVM, CSV or JSON Lines)
#   predict FILE MODEL [OUT]  OUT (or stdout) gets MODEL's label once per row of FILE
#   proba FILE MODEL OUT      as predict, with liblinear's "labels 0 1" header and probabilities
#   fail N                    writes 12 lines to stderr and exits with status N
#   sleep                     starts a child that sleeps, then sleeps (for the timeout)
#   env MODEL                 MODEL gets the environment, one VAR=value a line
#   dir MODEL                 MODEL gets the directory it runs in and the files there
#   args MODEL ARG...         MODEL gets the arguments, one a line
#   serve STARTS              serves requests (the serve protocol): appends a line to STARTS,
#                             then runs each request's mode (its third argument on) and
#                             answers ok, or error: with the status (paths without spaces)
#   serve-junk                answers every request with "hello"
#   serve-exit                exits with status 4 at the first request
set -eu
mode=$1; shift
case $mode in
train)
	awk -F'[ ,]' 'NR == 1 && $1 == "label" { next }
		/^{/ { match($0, /"label":[^,}]*/); n[substr($0, RSTART + 8, RLENGTH - 8)]++; next }
		{ n[$1]++ } END { best = ""; for (l in n) if (best == "" || n[l] > n[best] || n[l] == n[best] && l + 0 < best + 0) best = l; print best }' "$1" >"$2" ;;
predict)
	label=$(cat "$2")
	awk -v l="$label" 'NR == 1 && /^label/ { next } { print l }' "$1" >"${3:-/dev/stdout}" ;;
proba)
	label=$(cat "$2")
	awk -v l="$label" 'BEGIN { print "labels 1 0" } NR == 1 && /^label/ { next }
		{ if (l == 1) print "1 0.75 0.25"; else print "0 0.25 0.75" }' "$1" >"$3" ;;
fail)
	i=1
	while [ $i -le 12 ]; do echo "error line $i" >&2; i=$((i + 1)); done
	exit "$1" ;;
sleep)
	sleep 30 &
	sleep 30 ;;
env)
	env | sort >"$1" ;;
dir)
	{ pwd; ls; } >"$1" ;;
args)
	out=$1; shift
	for a in "$@"; do echo "$a"; done >"$out" ;;
serve)
	echo start >>"$1"
	while IFS= read -r line; do
		set -- $(printf '%s\n' "$line" | tr -d '[]"' | tr ',' ' ')
		shift 2
		if /bin/sh "$0" "$@" >&2; then echo ok; else echo "error: $1 exited with status $?"; fi
	done ;;
serve-junk)
	while IFS= read -r line; do echo hello; done ;;
serve-exit)
	read -r line; echo "dying" >&2; exit 4 ;;
*)
	echo "fake-learner: unknown mode $mode" >&2; exit 2 ;;
esac
