#!/bin/sh
# A hostile external learner for the tests of issue 43. Modes:
#   link-zero MODEL         MODEL is a symbolic link to /dev/zero
#   fifo MODEL              MODEL is a named pipe
#   huge MODEL SIZE         MODEL is a sparse file of SIZE bytes
#   flood                   writes "0" lines on stdout without end
#   setsid PIDS             starts a child in a session of its own (setsid) and a
#                           plain one, writes their pids to PIDS, then sleeps
#   bg-stderr PIDS MODEL    starts a child holding stderr, writes its pid to PIDS,
#                           writes MODEL and exits 0
set -eu
mode=$1; shift
case $mode in
link-zero) ln -s /dev/zero "$1" ;;
fifo) mkfifo "$1" ;;
huge) truncate -s "$2" "$1" ;;
flood) yes 0 ;;
setsid)
	setsid sleep 60 </dev/null >/dev/null 2>&1 &
	a=$!
	sleep 60 &
	echo "$a $!" >"$1.tmp" && mv "$1.tmp" "$1"
	sleep 60 ;;
bg-stderr)
	sleep 60 >/dev/null 2>&2 &
	echo "$!" >"$1.tmp" && mv "$1.tmp" "$1"
	echo 1 >"$2" ;;
*) echo "hostile: unknown mode $mode" >&2; exit 2 ;;
esac
