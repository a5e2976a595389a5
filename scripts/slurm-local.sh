#!/bin/sh
# slurm-local.sh: a single-node Slurm cluster in a temporary directory, for
# testing `repro slurm` on a real Slurm (Debian's slurm-wlm and munge), as
# root in a container or a throwaway VM; no systemd.
#
#   scripts/slurm-local.sh run CMD [ARG...]
#       start the cluster, run CMD with SLURM_CONF set (sbatch, squeue, ...
#       talk to it), stop the cluster, exit with CMD's status; e.g.
#       scripts/slurm-local.sh run go test -tags slurm -run TestSlurmCluster -v .
#   scripts/slurm-local.sh start
#       start it and print the state directory and the SLURM_CONF to export
#   scripts/slurm-local.sh stop STATEDIR
#       stop the daemons started into STATEDIR and remove it
#
# It installs slurm-wlm and munge with apt-get if they are missing, writes
# slurm.conf (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none,
# SelectType=select/cons_tres: no cgroups needed), a generated munge key,
# and the daemons' state, logs and sockets under the state directory;
# starts munged, slurmctld and slurmd in the foreground of background
# jobs, and stops exactly those processes, by the PIDs it recorded.
set -eu

die() { echo "slurm-local: $*" >&2; exit 1; }

install() {
	if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null && command -v munged >/dev/null; then
		return
	fi
	[ "$(id -u)" = 0 ] || die "slurm-wlm and munge are missing, and installing them needs root"
	echo "slurm-local: installing slurm-wlm and munge" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge >&2 ||
		{ apt-get update >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge >&2; }
}

# start creates the state directory, starts the daemons and prints the
# directory on stdout.
start() {
	install
	[ "$(id -u)" = 0 ] || die "the daemons run as root (SlurmUser=root); run as root"
	d=$(mktemp -d "${TMPDIR:-/tmp}/slurm-local.XXXXXX")
	chmod 700 "$d"
	mkdir -p "$d/state" "$d/spool" "$d/munge"
	chmod 700 "$d/munge"
	host=$(hostname -s)
	cpus=$(nproc)
	mem=$(awk '/^MemTotal:/ { printf "%d", $2 / 1024 * 0.9 }' /proc/meminfo)
	# Ports away from the defaults (6817, 6818), so that a Slurm already
	# on the host is not disturbed; SLURM_LOCAL_PORT moves them.
	port=${SLURM_LOCAL_PORT:-16817}
	cat >"$d/slurm.conf" <<EOF
# Written by scripts/slurm-local.sh: a one-node cluster for tests.
ClusterName=repro-local
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ReturnToService=2
MinJobAge=600
KillWait=5
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	# A fresh key for this cluster only.
	dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null
	chmod 400 "$d/munge/munge.key"

	munged -F -f --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket" \
		--pid-file="$d/munge/munged.pid" --seed-file="$d/munge/munged.seed" \
		--log-file="$d/munge/munged.log" >"$d/munged.out" 2>&1 &
	echo $! >"$d/pids"
	i=0
	until [ -S "$d/munge/munge.socket" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat "$d/munged.out" "$d/munge/munged.log" >&2 2>/dev/null; stop "$d"; die "munged did not start"; }
		sleep 0.1
	done
	slurmctld -D -i -f "$d/slurm.conf" >"$d/slurmctld.out" 2>&1 &
	echo $! >>"$d/pids"
	slurmd -D -f "$d/slurm.conf" -N "$host" >"$d/slurmd.out" 2>&1 &
	echo $! >>"$d/pids"
	i=0
	until SLURM_CONF="$d/slurm.conf" sinfo -h -N -o %T 2>/dev/null | grep -qx idle; do
		i=$((i + 1))
		if [ $i -ge 120 ]; then
			tail -n 20 "$d"/*.out "$d"/*.log >&2 || true
			stop "$d"
			die "the node did not come up idle in 60 s"
		fi
		sleep 0.5
	done
	echo "$d"
}

# stop kills the daemons whose PIDs start recorded in $1/pids (slurmd and
# slurmctld first, munged last), waits for them, and removes $1.
stop() {
	d=$1
	[ -f "$d/pids" ] || die "$d: no pids file; not a state directory of slurm-local.sh"
	# Reverse start order: slurmd, slurmctld, munged.
	for pid in $(tac "$d/pids"); do
		kill "$pid" 2>/dev/null || true
		i=0
		while kill -0 "$pid" 2>/dev/null; do
			i=$((i + 1))
			if [ $i -ge 100 ]; then
				kill -9 "$pid" 2>/dev/null || true
				break
			fi
			sleep 0.1
		done
	done
	rm -rf "$d"
}

case "${1:-}" in
start)
	d=$(start)
	echo "state: $d"
	echo "export SLURM_CONF=$d/slurm.conf"
	echo "stop with: $0 stop $d"
	;;
stop)
	[ $# -eq 2 ] || die "usage: $0 stop STATEDIR"
	stop "$2"
	;;
run)
	shift
	[ $# -ge 1 ] || die "usage: $0 run CMD [ARG...]"
	d=$(start)
	trap 'stop "$d"' EXIT
	trap 'exit 130' INT TERM
	status=0
	SLURM_CONF="$d/slurm.conf" "$@" || status=$?
	exit $status
	;;
*)
	sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
