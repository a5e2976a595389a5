#!/usr/bin/env bash
# readme-speed.sh — every row of the README's "Speed beside the peers"
# paragraph (issue 41 §3), timed as users time it: the whole `repro run` of
# a one-method experiment on LIBSVM files against the peer's train +
# predict on the same files. A (repro) and B (the peer) alternate, ROUNDS
# rounds; the table gives medians of user and system CPU seconds apart,
# peak RSS (GNU time's %M: the larger of the peer's train and predict),
# accuracy and repro's iterations, and the ratios repro / peer by user
# CPU, by user + system and by peak RSS. The load average is printed
# before and after each row: timings on a loaded machine are not the
# idle machine's (memory, accuracy and iterations are).
#
# Then the growth benchmark (GROWTH=1): the second 20 Newsgroups export's
# training file repeated 1×, 2×, 4×, 8× (rows), logreg-l2 on each, with
# peak RSS, the bytes of peak per stored training non-zero, and the
# log-log slopes of CPU time, of CPU time per iteration and of peak RSS
# against the non-zeros between 1× and 8× (goal ≤ 1.05), liblinear's
# beside them; each size is run ROUNDS times, A and B alternated, and the
# table gives medians (CPU = user + system).
#
# Usage (from the repository root; needs liblinear-tools and libsvm-tools,
# /usr/bin/time, and $REPRO_DATA holding 20news-bydate.tar.gz and
# uci/isolet/isolet{1+2+3+4,5}.csv.gz):
#
#	bench/readme-speed.sh [WORKDIR]          # default /tmp/readme-speed
#	ROUNDS=5 ROWS=l2-ng1,l2-ng2 GROWTH=0 bench/readme-speed.sh
#
# logreg-l2 runs at its defaults but intercept: false (liblinear without
# -B): solver auto, which on these sparse files is L-BFGS started from 10
# epochs of dual coordinate descent (liblinear -s 7's), on dense ISOLET
# plain L-BFGS; it stops at ‖∇f‖∞ ≤ 1e-5·max(1, |f|) per one-vs-rest
# task, liblinear -s 0 (TRON) at its default -e 0.01. Iterations are
# summed over the tasks, dual epochs included.
#
# ROWS selects rows by key (default all): l2-ng1 l2-ng2 l2-ng2x4
# l2-isolet l1-defaults l1-obj l1-pred l1-ng2-obj l1-ng2-pred
# l1-isolet-obj l1-isolet-pred rbf-isolet.
# REPRO=path times another binary
# (default: one built from this checkout).
set -euo pipefail

W=${1:-/tmp/readme-speed}
ROUNDS=${ROUNDS:-3}
ROWS=${ROWS:-l2-ng1,l2-ng2,l2-ng2x4,l2-isolet,l1-defaults,l1-obj,l1-pred,l1-ng2-obj,l1-ng2-pred,l1-isolet-obj,l1-isolet-pred,rbf-isolet}
GROWTH=${GROWTH:-1}
DATA=${REPRO_DATA:?set REPRO_DATA to the papers\' data directory}
mkdir -p "$W"
W=$(cd "$W" && pwd)
for bin in liblinear-train liblinear-predict svm-train svm-predict /usr/bin/time; do
	command -v "$bin" >/dev/null || { echo "readme-speed: $bin not found (apt-get install -y liblinear-tools libsvm-tools time)" >&2; exit 1; }
done
if [ -z "${REPRO:-}" ]; then
	REPRO=$W/repro
	go build -o "$REPRO" .
fi

# ---- files -----------------------------------------------------------------
want() { case ",$ROWS," in *",$1,"*) return 0;; esac; return 1; }

# spec DIR NAME METHOD PARAMS: a one-method experiment on DIR/train and
# DIR/test (the given split, every training row, one trial).
spec() {
	local dir=$1 name=$2 method=$3 params=$4 n
	n=$(grep -c . "$dir/train")
	cat >"$dir/$name.yaml" <<EOF
name: bench-$name
seed: 1
datasets:
  - name: libsvm
    id: f
    params: {file: train, test_file: test}
    split: {kind: given}
methods:
  - name: $method
    params: $params
curve: {sizes: [$n], trials: 1}
metrics: [accuracy]
EOF
}

export_20ng() { # DIR STOPWORDS
	[ -s "$1/train" ] || go run ./bench/liblinear -problem 20news -stop "$2" -paper "$DATA" -export "$1" >&2
}
times_file() { # SRC DST K: DST/train is SRC/train K times, DST/test SRC/test
	mkdir -p "$2"
	if [ ! -s "$2/train" ]; then
		for _ in $(seq "$3"); do cat "$1/train"; done >"$2/train"
	fi
	cp -f "$1/test" "$2/test"
}
isolet() { # DIR LABELS (classes: the 26 letters; vowel: +1 for A E I O U, else -1)
	mkdir -p "$1"
	local f out
	for f in train test; do
		out=$1/$f
		[ -s "$out" ] && continue
		if [ $f = train ]; then src=isolet1+2+3+4.csv.gz; else src=isolet5.csv.gz; fi
		zcat "$DATA/uci/isolet/$src" | awk -F, -v labels="$2" '{
			c = $NF + 0; y = c
			if (labels == "vowel") y = (c == 1 || c == 5 || c == 9 || c == 15 || c == 21) ? 1 : -1
			line = y
			for (j = 1; j < NF; j++) if ($j + 0 != 0) line = line " " j ":" $j
			print line
		}' >"$out"
	done
}

mkdir -p "$W/ng1" "$W/ng2"
export_20ng "$W/ng1" default
export_20ng "$W/ng2" none
want l2-ng2x4 && times_file "$W/ng2" "$W/ng2x4" 4
if want l2-isolet || want l1-isolet-obj || want l1-isolet-pred; then isolet "$W/isolet" classes; fi
if want rbf-isolet; then isolet "$W/vowel" vowel; fi

# ---- measuring --------------------------------------------------------------
# tm OUT CMD...: run CMD under GNU time, appending "user sys maxrss_kb" to OUT.
tm() {
	local out=$1
	shift
	/usr/bin/time -f "%U %S %M" -o "$W/.time" "$@" >/dev/null 2>"$W/.err" || { cat "$W/.err" >&2; return 1; }
	cat "$W/.time" >>"$out"
}
# peer OUT TRAIN... -- PREDICT...: train then predict; one line "user sys
# maxrss" with the times summed and the larger peak.
peer() {
	local out=$1 tr=() pr=()
	shift
	while [ "$1" != -- ]; do tr+=("$1"); shift; done
	shift
	pr=("$@")
	: >"$W/.p"
	tm "$W/.p" "${tr[@]}"
	tm "$W/.p" "${pr[@]}"
	awk '{u += $1; s += $2; if ($3 > m) m = $3} END {printf "%.2f %.2f %d\n", u, s, m}' "$W/.p" >>"$out"
}
median() { # FILE COLUMN
	sort -g -k"$2","$2" "$1" | awk -v c="$2" '{v[NR] = $c} END {if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
accuracy_of() { grep -o '"accuracy":[0-9.]*' "$1/results.jsonl" | head -1 | cut -d: -f2; }
iterations_of() { grep -o '"iterations":[0-9]*' "$1/results.jsonl" | head -1 | cut -d: -f2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

TABLE=$W/table.md
{
	echo "| row | repro user s | repro sys s | peer user s | peer sys s | user ratio | user+sys ratio | repro peak MB | peer peak MB | memory ratio | accuracy repro / peer | repro iterations | load (start → end) |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$TABLE"

# row KEY LABEL DIR SPEC REPROARGS -- PEERTRAIN... -- PEERPREDICT...
row() {
	local key=$1 label=$2 dir=$3 sp=$4 extra=$5
	shift 5
	want "$key" || return 0
	shift # --
	local tr=() pr=()
	while [ "$1" != -- ]; do tr+=("$1"); shift; done
	shift
	pr=("$@")
	local a=$W/.a-$key b=$W/.b-$key out=$W/out-$key l0 l1
	: >"$a"
	: >"$b"
	l0=$(load)
	for _ in $(seq "$ROUNDS"); do
		# shellcheck disable=SC2086
		(cd "$dir" && tm "$a" "$REPRO" run "$sp.yaml" --data . -o "$out" --fresh -q $extra)
		(cd "$dir" && peer "$b" "${tr[@]}" -- "${pr[@]}")
	done
	l1=$(load)
	local pacc
	pacc=$(cd "$dir" && "${pr[@]}" 2>/dev/null | grep -o 'Accuracy = [0-9.]*' | cut -d' ' -f3)
	local au as am bu bs bm
	au=$(median "$a" 1) as=$(median "$a" 2) am=$(median "$a" 3)
	bu=$(median "$b" 1) bs=$(median "$b" 2) bm=$(median "$b" 3)
	awk -v l="$label" -v au="$au" -v as="$as" -v am="$am" -v bu="$bu" -v bs="$bs" -v bm="$bm" \
		-v acc="$(accuracy_of "$out")" -v pacc="$pacc" -v it="$(iterations_of "$out")" -v l0="$l0" -v l1="$l1" 'BEGIN {
		printf "| %s | %.2f | %.2f | %.2f | %.2f | **%.2f** | **%.2f** | %.0f | %.0f | **%.2f** | %.2f / %s | %s | %s → %s |\n",
			l, au, as, bu, bs, au / bu, (au + as) / (bu + bs), am / 1024, bm / 1024, am / bm, acc, pacc, it, l0, l1
	}' >>"$TABLE"
	tail -1 "$TABLE"
}

spec "$W/ng1" l2 logreg-l2 "{C: 1, intercept: false}"
spec "$W/ng2" l2 logreg-l2 "{C: 1, intercept: false}"
spec "$W/ng1" l1 logreg-l1 "{C: 1, intercept: false}"
spec "$W/ng2" l1 logreg-l1 "{C: 1, intercept: false}"
want l2-ng2x4 && spec "$W/ng2x4" l2 logreg-l2 "{C: 1, intercept: false}"
want l2-isolet && spec "$W/isolet" l2 logreg-l2 "{C: 1, intercept: false}"
{ want l1-isolet-obj || want l1-isolet-pred; } && spec "$W/isolet" l1 logreg-l1 "{C: 1, intercept: false}"
want rbf-isolet && spec "$W/vowel" rbf svm "{C: 1, kernel: rbf, sigma: 15.811388300841896, tol: 0.001, cache_mb: 400}"

echo "readme-speed: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), repro $("$REPRO" version | cut -d' ' -f2-), load $(load), $ROUNDS rounds"
row l2-ng1 "20NG (stop words, 11,806 cols) logreg-l2 C=1 vs \`-s 0 -c 1\`" "$W/ng1" l2 "" \
	-- liblinear-train -q -s 0 -c 1 train m -- liblinear-predict test m p
row l2-ng2 "20NG (no stop words, log counts, 12,304 cols) logreg-l2 vs \`-s 0 -c 1\`" "$W/ng2" l2 "" \
	-- liblinear-train -q -s 0 -c 1 train m -- liblinear-predict test m p
row l2-ng2x4 "the same, training file ×4" "$W/ng2x4" l2 "" \
	-- liblinear-train -q -s 0 -c 1 train m -- liblinear-predict test m p
row l2-isolet "ISOLET 26 letters (dense, 617 cols) logreg-l2 vs \`-s 0 -c 1\`" "$W/isolet" l2 "" \
	-- liblinear-train -q -s 0 -c 1 train m -- liblinear-predict test m p
row l1-defaults "20NG logreg-l1 default \`tol\` vs \`-s 6 -c 1\` (both defaults)" "$W/ng1" l1 "" \
	-- liblinear-train -q -s 6 -c 1 train m -- liblinear-predict test m p
row l1-obj "20NG logreg-l1 \`tol: 10\` vs \`-s 6 -c 1\` (the same objective)" "$W/ng1" l1 "--set methods.0.params.tol=10" \
	-- liblinear-train -q -s 6 -c 1 train m -- liblinear-predict test m p
row l1-pred "20NG logreg-l1 default vs \`-s 6 -c 1 -e 0.0001\` (the same predictions)" "$W/ng1" l1 "" \
	-- liblinear-train -q -s 6 -c 1 -e 0.0001 train m -- liblinear-predict test m p
# "The same predictions": liblinear at the loosest of -e 1e-2, 1e-3, …
# whose test accuracy equals repro's at its default tol (the optimum): on
# the first export -e 0.0001 (79.2751 %; 79.3282 at 1e-3), on the second
# -e 0.000001 (78.505 %; 78.8635 at 1e-3, 78.58 at 1e-4, 78.48 at 1e-5), on
# ISOLET -e 0.000001 (95.1251 %; 95.3817 at 1e-3, 95.0609 at 1e-4 and 1e-5).
# "The same objective": repro at the loosest tol that reaches liblinear's
# default objective: 10 on both exports, 3 on ISOLET (go run ./bench/liblinear
# -problem 20news|isolet [-stop none] -solvers l1 -e 0.01).
row l1-ng2-obj "20NG second export logreg-l1 \`tol: 10\` vs \`-s 6 -c 1\` (the same objective)" "$W/ng2" l1 "--set methods.0.params.tol=10" \
	-- liblinear-train -q -s 6 -c 1 train m -- liblinear-predict test m p
row l1-ng2-pred "20NG second export logreg-l1 default vs \`-s 6 -c 1 -e 0.000001\` (the same predictions)" "$W/ng2" l1 "" \
	-- liblinear-train -q -s 6 -c 1 -e 0.000001 train m -- liblinear-predict test m p
row l1-isolet-obj "ISOLET 26 letters logreg-l1 \`tol: 3\` vs \`-s 6 -c 1\` (the same objective)" "$W/isolet" l1 "--set methods.0.params.tol=3" \
	-- liblinear-train -q -s 6 -c 1 train m -- liblinear-predict test m p
row l1-isolet-pred "ISOLET 26 letters logreg-l1 default vs \`-s 6 -c 1 -e 0.000001\` (the same predictions)" "$W/isolet" l1 "" \
	-- liblinear-train -q -s 6 -c 1 -e 0.000001 train m -- liblinear-predict test m p
row rbf-isolet "ISOLET vowels RBF svm vs \`svm-train -t 2 -g 0.002 -c 1 -m 400 -e 0.001\`" "$W/vowel" rbf "" \
	-- svm-train -q -t 2 -g 0.002 -c 1 -m 400 -e 0.001 train m -- svm-predict test m p
echo
cat "$TABLE"

# ---- growth -----------------------------------------------------------------
[ "$GROWTH" = 1 ] || exit 0
echo
echo "growth: 20NG second export's training file ×k, logreg-l2 C=1 (A and B alternated, medians of $ROUNDS; load $(load))"
G=$W/.growth
: >"$G"
for k in 1 2 4 8; do
	d=$W/ng2x$k
	if [ $k = 1 ]; then d=$W/ng2; else times_file "$W/ng2" "$d" $k; fi
	spec "$d" l2 logreg-l2 "{C: 1, intercept: false}"
	: >"$W/.g"
	: >"$W/.gp"
	for _ in $(seq "$ROUNDS"); do
		(cd "$d" && tm "$W/.g" "$REPRO" run l2.yaml --data . -o "$W/out-g$k" --fresh -q)
		(cd "$d" && peer "$W/.gp" liblinear-train -q -s 0 -c 1 train m -- liblinear-predict test m p)
	done
	# CPU = user + sys per run, then the median; peak RSS the median.
	awk '{print $1 + $2, $3}' "$W/.g" >"$W/.gc"
	awk '{print $1 + $2, $3}' "$W/.gp" >"$W/.gpc"
	nnz=$(awk '{n += NF - 1} END {print n}' "$d/train")
	echo "$k $nnz $(median "$W/.gc" 1) 0 $(median "$W/.gc" 2) $(iterations_of "$W/out-g$k") $(median "$W/.gpc" 1) 0 $(median "$W/.gpc" 2)" >>"$G"
done
awk 'BEGIN {
	print "| × | training non-zeros | repro CPU s | iterations | CPU ms per iteration | repro peak MB | peak bytes per non-zero | liblinear CPU s | liblinear peak MB |"
	print "|---|---|---|---|---|---|---|---|---|"
}
{
	k[NR] = $1; z[NR] = $2; c[NR] = $3 + $4; m[NR] = $5 * 1024; it[NR] = $6; lc[NR] = $7 + $8; lm[NR] = $9 * 1024
	printf "| %d | %d | %.2f | %d | %.2f | %.0f | %.1f | %.2f | %.0f |\n", $1, $2, c[NR], it[NR], 1000 * c[NR] / it[NR], m[NR] / 1048576, m[NR] / $2, lc[NR], lm[NR] / 1048576
}
END {
	l = log(z[NR] / z[1])
	printf "\nslopes 1× → %d× (log-log against the non-zeros; goal ≤ 1.05): CPU %.3f (liblinear %.3f), CPU per iteration %.3f, peak RSS %.3f (liblinear %.3f); marginal bytes per added non-zero: repro %.1f, liblinear %.1f\n",
		k[NR], log(c[NR] / c[1]) / l, log(lc[NR] / lc[1]) / l, log((c[NR] / it[NR]) / (c[1] / it[1])) / l, log(m[NR] / m[1]) / l, log(lm[NR] / lm[1]) / l, (m[NR] - m[1]) / (z[NR] - z[1]), (lm[NR] - lm[1]) / (z[NR] - z[1])
}' "$G" | tee "$W/growth.md"
