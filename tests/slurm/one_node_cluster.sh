# A one-node Slurm cluster for a test, sourced by tests/slurm/*_test.sh after they define
# skip (exit 77 with the reason) and say: Debian's slurm-wlm and munge (installed when missing,
# as root with apt-get), munged, slurmctld and slurmd on localhost, as root, configured in a
# temporary folder $work that is removed on exit, with any job ids in $jobs cancelled. It
# exports SLURM_CONF, and defines wait_for SECONDS COMMAND... and log_tail FILE. Skips, with
# the reason, where the packages cannot be installed or the daemons cannot start.
[ "$(id -u)" -eq 0 ] || skip "the one-node Slurm cluster runs its daemons as root; run as root"
missing=()
for tool in slurmctld slurmd sbatch; do command -v "$tool" >/dev/null || missing=(slurm-wlm); done
command -v munged >/dev/null || missing+=(munge)
if ((${#missing[@]})); then
  command -v apt-get >/dev/null || skip "${missing[*]} not installed, and no apt-get to install them"
  say "installing ${missing[*]}"
  install_log=$(mktemp)
  if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
       >"$install_log" 2>&1; then
    reason=$(tail -n 2 "$install_log" | tr '\n' ' ')
    rm -f "$install_log"
    skip "cannot install ${missing[*]}: $reason"
  fi
  rm -f "$install_log"
fi

work=$(mktemp -d /tmp/gpubench-slurm-XXXXXX)
chmod 700 "$work"
daemons=() jobs=""
stop() {
  if [ -n "$jobs" ]; then scancel $jobs 2>/dev/null || true; fi
  for pid in "${daemons[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${daemons[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap stop EXIT
# Waits up to $1 seconds for the command after it to succeed.
wait_for() {
  local seconds=$1; shift
  for ((i = 0; i < seconds * 5; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  return 1
}
log_tail() { tail -n 3 "$1" 2>/dev/null | tr '\n' ' '; }

# munge: a key of our own and a socket in the folder, so that no system munged is needed.
mkdir -p "$work/munge"
chmod 711 "$work/munge"  # clients need to reach the socket
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
socket="$work/munge/munge.socket"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$socket" \
  --pid-file="$work/munge/munged.pid" --log-file="$work/munge/munged.log" \
  --seed-file="$work/munge/munged.seed" >"$work/munged.out" 2>&1 &
daemons+=($!)
wait_for 10 test -S "$socket" || skip "munged did not start: $(log_tail "$work/munged.out")"

# Two free TCP ports for slurmctld and slurmd (another test's cluster may hold the defaults).
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for ((try = 0; try < 50; try++)); do
  port=$((20000 + RANDOM % 20000))
  port_free "$port" && port_free $((port + 1)) && break
done
# The node as slurmd sees it (CPUs, sockets, cores, threads), named localhost; memory declared
# lower than found, so that the node is never drained for it.
node=$(slurmd -C 2>&1 | head -n 1 | sed 's/^NodeName=[^ ]*//') || skip "slurmd -C failed: $node"
[[ $node == *CPUs=*RealMemory=* ]] || skip "slurmd -C did not describe the node: $node"
memory=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
node=$(sed "s/RealMemory=[0-9]*/RealMemory=$((memory / 2))/" <<<"$node")
mkdir -p "$work/state" "$work/spool"
cat >"$work/slurm.conf" <<CONF
ClusterName=gpubench-test
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
NodeName=localhost NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=10 State=UP
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -D -i -f "$SLURM_CONF" >"$work/slurmctld.out" 2>&1 &
controller=$!
daemons+=($controller)
slurmd -D -N localhost -f "$SLURM_CONF" >"$work/slurmd.out" 2>&1 &
node_daemon=$!
daemons+=($node_daemon)
# Up to 30 s for the node to register and be idle; a daemon that exits ends the wait.
running() { local state; state=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $state != Z* ]]; }
began=$SECONDS
while true; do
  running "$controller" || skip "slurmctld could not start: $(log_tail "$work/slurmctld.out")"
  running "$node_daemon" || skip "slurmd could not start: $(log_tail "$work/slurmd.out")"
  [ "$(timeout 5 sinfo -h -n localhost -o %t 2>/dev/null)" = idle ] && break
  ((SECONDS - began < 30)) ||
    skip "the Slurm node was not idle after 30 s: $(log_tail "$work/slurmctld.out") $(log_tail "$work/slurmd.out")"
  sleep 0.2
done
say "one-node cluster up (ports $port, $((port + 1)))"
