#!/usr/bin/env bash
# cluster.sh start|stop DIR: a single-node Slurm cluster of this machine in
# DIR, for the tests: munged with its own key and socket, slurmctld and
# slurmd with a generated slurm.conf on free ports, all as the current user
# (root), nothing outside DIR. `start` prints the SLURM_CONF to export and
# waits until the node is idle; `stop` ends every daemon it started.
set -eu
(($# == 2)) || { echo "usage: cluster.sh start|stop DIR" >&2; exit 2; }
cmd=$1 dir=$2
if [[ $cmd == stop ]]; then
  for d in slurmd slurmctld munged; do
    [[ -f $dir/$d.pid ]] && kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
  done
  sleep 1
  for d in slurmd slurmctld munged; do
    [[ -f $dir/$d.pid ]] && kill -9 "$(cat "$dir/$d.pid")" 2>/dev/null || true
  done
  exit 0
fi
[[ $cmd == start ]] || { echo "cluster.sh: unknown command $cmd" >&2; exit 2; }
rm -rf "$dir" && mkdir -p "$dir/state" "$dir/spool"
dir=$(cd "$dir" && pwd)
dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$dir/munge.key"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge.sock" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munge.seed"
# Two ports nobody listens on, below the kernel's ephemeral range (32768 up),
# where an MPI's or a client's outgoing socket could take one between this
# check and the daemon's bind; the pid spreads parallel runs apart.
port=$((20000 + ($$ % 600) * 20))
while ss -ltn 2>/dev/null | grep -q ":$port \|:$((port + 1)) "; do port=$((port + 2)); done
host=$(hostname -s)
user=$(id -un)
cat > "$dir/slurm.conf" <<CONF
ClusterName=haloex-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc --all) RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
# The node registers within a second here; a loaded machine gets 90 s. A
# daemon that died (a port taken, a bad setting) ends the wait at once.
state=
for _ in $(seq 1 180); do
  state=$(sinfo -h -o %t 2>/dev/null || true)
  [[ $state == idle ]] && { echo "$SLURM_CONF"; exit 0; }
  for d in slurmctld slurmd; do
    kill -0 "$(cat "$dir/$d.pid" 2>/dev/null || echo 0)" 2>/dev/null && continue
    sleep 1  # let a daemon that is still starting write its pid file
    kill -0 "$(cat "$dir/$d.pid" 2>/dev/null || echo 0)" 2>/dev/null && continue
    echo "cluster.sh: $d is not running; logs in $dir" >&2
    tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
    exit 1
  done
  sleep 0.5
done
echo "cluster.sh: the node did not become idle in 90 s (sinfo: ${state:-no answer}); logs in $dir" >&2
tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
exit 1
