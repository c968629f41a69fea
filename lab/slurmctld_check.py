"""Load rendered configs into the real slurmctld of a Debian release, in a throw-away container.

The container runs munged and ``slurmctld -D`` from Debian's packages on the rendered slurm.conf,
gres.conf and topology file, with /etc/hosts entries for every node (slurmctld resolves each node at
start), then reads back what the daemon understood with scontrol.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import yaml

SUITE_RELEASE = {"bookworm": "22.05", "trixie": "24.11", "sid": "26.05"}
IMAGE = "gpucluster/lab:{suite}"
ROOT = Path(__file__).resolve().parents[1]
_PAIR = re.compile(r"(\w+)=(\S*)")

# The lab image's daemons made ready to run in a bare container: the node names resolved, munged started.
_PREPARE = r"""cat /work/hosts >> /etc/hosts
mkdir -p /run/munge /var/log/slurm /var/spool/slurmctld
chown munge: /run/munge /var/log/munge /var/lib/munge /etc/munge
chown slurm: /var/log/slurm /var/spool/slurmctld
[ -s /etc/munge/munge.key ] || runuser -u munge -- mungekey -c
runuser -u munge -- munged
"""

# A MariaDB and a slurmdbd beside slurmctld, as the accounting role sets them up: the database and its user
# made before slurmdbd's first start (slurmdbd 24.11 and 26.05 on MariaDB 11 fail their first query when they
# create the database themselves: client error 5027), the cluster registered, and every QOS the partitions
# name (26.05 refuses a partition QOS it cannot look up). MariaDB runs with the role's own settings
# (mariadb_cnf). slurmdbd listens on every address, so the
# AccountingStorageHost of the rendered slurm.conf (a loopback address here, like every host) reaches it.
_ACCOUNTING = r"""mkdir -p /run/mysqld && chown mysql: /run/mysqld
cp /work/90-slurmdbd.cnf /etc/mysql/mariadb.conf.d/
(runuser -u mysql -- /usr/sbin/mariadbd >/dev/null 2>&1 &)
for _ in $(seq 1 60); do mysqladmin ping >/dev/null 2>&1 && break; sleep 0.5; done
mysql -e "CREATE DATABASE slurm_acct_db; CREATE USER 'slurm'@'localhost' IDENTIFIED BY 'pw';
  GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"
for line in AuthType=auth/munge DbdHost=localhost SlurmUser=slurm StorageType=accounting_storage/mysql \
    StorageUser=slurm StoragePass=pw LogFile=/var/log/slurm/slurmdbd.log; do echo "$line"; done \
  >/etc/slurm/slurmdbd.conf
chown slurm: /etc/slurm/slurmdbd.conf; chmod 600 /etc/slurm/slurmdbd.conf
start_slurmdbd() {
  slurmdbd
  for _ in $(seq 1 40); do ss -ltn | grep -q ':6819 ' && break; sleep 0.5; done
  sacctmgr -i add cluster "$(sed -n 's/^ClusterName=//p' /etc/slurm/slurm.conf)" >/dev/null
}
start_slurmdbd
for qos in $(grep -o -E ' (QOS|AllowQos)=[^ ]+' /etc/slurm/slurm.conf | cut -d= -f2 | tr ',' '\n' \
    | sort -u | grep -vx ALL); do
  # sacctmgr exits 1 on a QOS that exists already (normal is made with the database)
  sacctmgr -n -P show qos format=name | grep -qx "$qos" || sacctmgr -i add qos "$qos" >/dev/null
done
"""

# slurmctld registers with slurmdbd after it answers: wait (bounded) for the control host slurmdbd records, in
# /work/registered (cluster|controlhost).
_REGISTERED = r"""for _ in $(seq 1 60); do
  sacctmgr -n -P show cluster format=cluster,controlhost >/work/registered
  grep -q '|.' /work/registered && break
  sleep 0.5
done
"""

# slurm.conf as rendered, accounting and priority lines included (a slurmdbd runs beside it). Every node
# name resolves to a loopback address of the container, where this slurmctld itself listens, so a backup
# SlurmctldHost would be this daemon again: only the primary's line is kept, and a pair's SlurmctldAddr
# (its virtual IP) becomes the loopback, so the key is still read and no client call leaves the container
# (failover is drilled in the production lab). (No --network none: slurmctld's listening socket needs an
# address beside the loopback - getaddrinfo with AI_ADDRCONFIG finds none without it.)
RUN_SCRIPT = (
    r"""
set -eu
cp /input/* /etc/slurm/
sed -i -E -e '0,/^SlurmctldHost=/!{/^SlurmctldHost=/d}' -e 's/^SlurmctldAddr=.*/SlurmctldAddr=127.0.0.1/' \
  /etc/slurm/slurm.conf
@PREPARE@
@ACCOUNTING@
slurmctld -D -i >/work/slurmctld.out 2>&1 &
up=""
for _ in $(seq 1 240); do
  if scontrol ping 2>/dev/null | grep -q 'is UP'; then up=yes; break; fi
  kill -0 $! 2>/dev/null || break
  sleep 0.5
done
[ -n "$up" ] || { echo "slurmctld did not come up"; cat /work/slurmctld.out /var/log/slurm/slurmctld.log; exit 3; }
scontrol show nodes -o >/work/nodes
scontrol show partitions -o >/work/partitions
scontrol show topology >/work/topology 2>&1 || true
for topo in $(cat /work/topologies); do scontrol show topology "$topo" >/work/topology.$topo 2>&1 || true; done
scontrol show config >/work/config
# slurmctld's OpenMetrics endpoints (MetricsType, 25.11 and later), each after a '# GET <path>' line
: >/work/metrics
if grep -q '^MetricsType=' /etc/slurm/slurm.conf; then
  port=$(sed -n 's/^SlurmctldPort *= *//p' /work/config)
  for path in /metrics/jobs /metrics/nodes /metrics/partitions /metrics/scheduler; do
    echo "# GET $path" >>/work/metrics
    python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
      "http://127.0.0.1:${port%%-*}$path" >>/work/metrics 2>&1 || echo "# FAILED $path" >>/work/metrics
  done
fi
@REGISTERED@
cp /var/log/slurm/slurmctld.log /work/slurmctld.log
kill $! ; wait || true
""".replace("@PREPARE@\n", _PREPARE)
    .replace("@ACCOUNTING@\n", _ACCOUNTING)
    .replace("@REGISTERED@\n", _REGISTERED)
)


def mariadb_cnf() -> str:
    """The accounting role's MariaDB settings for slurmdbd, rendered from its template and defaults."""
    role = ROOT / "roles" / "accounting"
    defaults = yaml.safe_load((role / "defaults" / "main.yml").read_text())
    template = jinja2.Template((role / "templates" / "90-slurmdbd.cnf.j2").read_text(), keep_trailing_newline=True)
    return template.render(**defaults)


@dataclass
class Readback:
    """What slurmctld reports: node and partition records, topology lines and its log."""

    nodes: dict[str, dict[str, str]]
    partitions: dict[str, dict[str, str]]
    topology: list[dict[str, str]]
    named_topologies: dict[str, list[dict[str, str]]]
    config: str
    log: str
    registered: str  # sacctmgr's cluster|controlhost: slurmctld registered with the slurmdbd beside it
    metrics: str = ""  # its OpenMetrics endpoints' answers, each after a '# GET <path>' line (MetricsType set)


def _records(text: str, key: str) -> dict[str, dict[str, str]]:
    records = {}
    for line in text.splitlines():
        fields = dict(_PAIR.findall(line))
        if key in fields:
            records[fields[key]] = fields
    return records


def _topology(text: str) -> list[dict[str, str]]:
    return [
        dict(_PAIR.findall(line))
        for line in text.splitlines()
        if line.startswith(("SwitchName=", "BlockName=", "Block", "Switch"))
    ]


def load_configs(
    suite: str, config_dir: Path, hosts: list[str], controller: str, topologies: tuple[str, ...] = ()
) -> Readback:
    """Start slurmctld of ``suite`` on the configs in ``config_dir`` and read back its view."""
    work = Path(tempfile.mkdtemp(prefix="gpucluster-slurmctld-"))
    try:
        lines = [f"127.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255} {host}" for i, host in enumerate(hosts, start=2)]
        (work / "hosts").write_text("\n".join(lines) + "\n")
        (work / "topologies").write_text("\n".join(topologies) + "\n")
        (work / "run.sh").write_text(RUN_SCRIPT)
        (work / "90-slurmdbd.cnf").write_text(mariadb_cnf())
        result = subprocess.run(
            [
                "docker",
                "run",
                "--rm",
                "--hostname",
                controller,
                "--entrypoint",
                "bash",
                "-v",
                f"{config_dir}:/input:ro",
                "-v",
                f"{work}:/work",
                IMAGE.format(suite=suite),
                "/work/run.sh",
            ],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if result.returncode != 0:
            raise AssertionError(f"slurmctld ({suite}) failed on {config_dir}:\n{result.stdout}\n{result.stderr}")
        named = {name: _topology((work / f"topology.{name}").read_text()) for name in topologies}
        return Readback(
            nodes=_records((work / "nodes").read_text(), "NodeName"),
            partitions=_records((work / "partitions").read_text(), "PartitionName"),
            topology=_topology((work / "topology").read_text()),
            named_topologies=named,
            config=(work / "config").read_text(),
            log=(work / "slurmctld.log").read_text(errors="replace"),
            registered=(work / "registered").read_text(),
            metrics=(work / "metrics").read_text(errors="replace"),
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


# A throw-away controller with its own slurm.conf (and gres.conf), no slurmd: does slurmctld start on it, and
# what does it report? With ACCOUNTING=1 a MariaDB and a slurmdbd run beside it and the cluster is registered.
SMALL_RUN = (
    r"""
set -u
cp /work/slurm.conf /etc/slurm/slurm.conf
for file in gres.conf topology.conf topology.yaml cgroup.conf; do
  [ -s /work/$file ] && cp /work/$file /etc/slurm/$file
done
@PREPARE@
if [ "$ACCOUNTING" = 1 ]; then
@ACCOUNTING@
fi
slurmctld -D -i >/work/out 2>&1 &
for _ in $(seq 1 40); do
  if timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'; then
    echo UP; scontrol show partitions -o; scontrol show nodes -o
    if [ "$ACCOUNTING" = 1 ]; then
@REGISTERED@
      sacctmgr -n -P show cluster format=cluster
      mysql -N -e "SHOW TABLES FROM slurm_acct_db LIKE '%job_table'"; cat /var/log/slurm/slurmdbd.log
    fi
    exit 0
  fi
  kill -0 $! 2>/dev/null || break
  sleep 0.5
done
echo DOWN; cat /work/out
""".replace("@PREPARE@\n", _PREPARE)
    .replace("@ACCOUNTING@\n", _ACCOUNTING)
    .replace("@REGISTERED@\n", _REGISTERED)
)


def small_files(config: dict[str, Any]) -> tuple[str, str, dict[str, str]]:
    """A cluster_config (plugins/module_utils/render.py) as small_slurmctld reads it: slurm.conf with the
    controller named ctl and a health program that exists there, gres.conf with /dev/null for the GPU device
    files, and the topology file of the release."""
    body = [line for lines in config["slurm_conf"].values() for line in lines if not line.startswith("SlurmctldHost=")]
    slurm_conf = "SlurmctldHost=ctl\n" + "\n".join(body).replace("/usr/local/sbin/gpucluster-node-health", "/bin/true")
    gres = re.sub(r"File=/dev/\S+", "File=/dev/null", "\n".join(config["gres_conf"]))
    files = {}
    if config["topology_conf"]:
        files["topology.conf"] = "\n".join(config["topology_conf"]) + "\n"
    if config["topology_yaml"]:
        files["topology.yaml"] = yaml.safe_dump(config["topology_yaml"], sort_keys=False)
    return slurm_conf + "\n", gres + "\n", files


def run_in_image(
    suite: str,
    work: str,
    *,
    timeout: int,
    environment: dict[str, str] | None = None,
    hostname: str = "ctl",
    ipv6: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``work``/run.sh in a throw-away container of the lab image of ``suite`` (``work`` at /work; ``ipv6``: with
    IPv6 on its loopback, which Docker turns off)."""
    docker = ["docker", "run", "--rm", "--hostname", hostname, "--entrypoint", "bash", "-v", f"{work}:/work"]
    if ipv6:
        docker += ["--sysctl", "net.ipv6.conf.all.disable_ipv6=0", "--sysctl", "net.ipv6.conf.lo.disable_ipv6=0"]
    for name, value in (environment or {}).items():
        docker += ["-e", f"{name}={value}"]
    return subprocess.run(
        [*docker, IMAGE.format(suite=suite), "/work/run.sh"],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# slurm.conf of one node (n1) that every release's slurmctld starts on: the base of the single-key checks.
ONE_NODE_CONF = """ClusterName=keys
SlurmctldHost=ctl
SlurmUser=slurm
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
NodeName=n1 CPUs=1 RealMemory=100 State=UNKNOWN
PartitionName=p Nodes=n1 Default=YES
"""

_SHOWN_RUN = (
    "set -u\ncp /work/slurm.conf /etc/slurm/slurm.conf\n"
    + _PREPARE
    + r"""slurmctld -D -i >/work/out 2>&1 &
for _ in $(seq 1 40); do timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' && break; sleep 0.5; done
timeout 10 scontrol show config
"""
)


_REACHED_RUN = (
    "set -u\ncp /work/slurm.conf /etc/slurm/slurm.conf\n"
    + _PREPARE
    + r"""slurmctld -D -i >/work/out 2>&1 &
for _ in $(seq 1 40); do grep -q 'Running as primary controller' /work/out && break; sleep 0.5; done
timeout 20 scontrol ping 2>&1 | tail -2
grep -q 'Running as primary controller' /work/out || tail -5 /work/out
"""
)


def controller_reached(suite: str, slurm_conf: str) -> tuple[bool, str]:
    """Whether scontrol of ``suite`` reaches the slurmctld started on ``slurm_conf`` (ONE_NODE_CONF and more) at the
    address slurm.conf gives (an IPv6 one too: the container has IPv6 on its loopback), and what it said."""
    with tempfile.TemporaryDirectory(prefix="gpucluster-reached-") as work:
        Path(work, "slurm.conf").write_text(slurm_conf)
        Path(work, "hosts").write_text("127.0.0.2 n1\n")
        Path(work, "run.sh").write_text(_REACHED_RUN)
        said = run_in_image(suite, work, timeout=120, ipv6=True).stdout
    return "is UP" in said, said


def shown_config(suite: str, slurm_conf: str) -> str:
    """`scontrol show config` of the slurmctld of ``suite`` started on ``slurm_conf`` (ONE_NODE_CONF and more):
    the values as that release read them ("" where it did not start)."""
    with tempfile.TemporaryDirectory(prefix="gpucluster-shown-") as work:
        Path(work, "slurm.conf").write_text(slurm_conf)
        Path(work, "hosts").write_text("127.0.0.2 n1\n")
        Path(work, "run.sh").write_text(_SHOWN_RUN)
        return run_in_image(suite, work, timeout=120).stdout


def small_slurmctld(
    suite: str,
    slurm_conf: str,
    gres_conf: str = "",
    hosts: tuple[str, ...] = (),
    *,
    accounting: bool = False,
    files: dict[str, str] | None = None,
) -> tuple[bool, str]:
    """Start slurmctld of ``suite`` (hostname ctl) on ``slurm_conf``: (whether it answered, what it reported or
    said). ``hosts`` resolve to loopback addresses; ``accounting`` runs MariaDB and slurmdbd beside it; ``files``
    (topology.conf, topology.yaml or cgroup.conf) go beside slurm.conf."""
    with tempfile.TemporaryDirectory(prefix="gpucluster-small-") as work:
        Path(work, "slurm.conf").write_text(slurm_conf)
        Path(work, "gres.conf").write_text(gres_conf)
        for name, text in (files or {}).items():
            Path(work, name).write_text(text)
        lines = [f"127.0.{i >> 8}.{i & 255} {host}" for i, host in enumerate(hosts, start=2)]
        Path(work, "hosts").write_text("".join(f"{line}\n" for line in lines))
        Path(work, "run.sh").write_text(SMALL_RUN)
        Path(work, "90-slurmdbd.cnf").write_text(mariadb_cnf())
        result = run_in_image(suite, work, timeout=180, environment={"ACCOUNTING": str(int(accounting))})
    return result.stdout.startswith("UP"), result.stdout + result.stderr


def expand_hostlist(suite: str, expressions: list[str]) -> list[list[str]]:
    """Slurm's own expansion of hostlist expressions (scontrol show hostnames; 22.05 wants a slurm.conf)."""
    with tempfile.TemporaryDirectory(prefix="gpucluster-hostnames-") as work:
        Path(work, "slurm.conf").write_text("ClusterName=hostnames\nSlurmctldHost=localhost\n")
        script = "; ".join(f"scontrol show hostnames '{e}' | tr '\\n' ' '; echo" for e in expressions)
        result = subprocess.run(
            [
                "docker",
                "run",
                "--rm",
                "-e",
                "SLURM_CONF=/work/slurm.conf",
                "-v",
                f"{work}:/work",
                "--entrypoint",
                "bash",
                IMAGE.format(suite=suite),
                "-c",
                script,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
    return [line.split() for line in result.stdout.splitlines()]


def sacctmgr_answers(suite: str, commands: list[str]) -> list[tuple[int, str]]:
    """Each of ``commands`` (sacctmgr's arguments, e.g. "add qos q1 flags=DenyOnLimit") given to the real sacctmgr of
    ``suite`` against a slurmdbd on MariaDB, in one throw-away container: (its exit status, what it said)."""
    run = "\n".join(
        f"out=$(sacctmgr -i {command} 2>&1); echo \"@@ $? $(echo $out | tr '\\n' ' ')\"" for command in commands
    )
    conf = (
        "SlurmctldHost=ctl\nClusterName=words\nNodeName=n1 CPUs=1 RealMemory=100\nPartitionName=p Nodes=n1\n"
        "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=localhost\n"
    )
    with tempfile.TemporaryDirectory(prefix="gpucluster-sacctmgr-") as work:
        Path(work, "slurm.conf").write_text(conf)
        Path(work, "hosts").write_text("")
        Path(work, "90-slurmdbd.cnf").write_text(mariadb_cnf())
        Path(work, "run.sh").write_text(
            f"set -u\ncp /work/slurm.conf /etc/slurm/slurm.conf\n{_PREPARE}{_ACCOUNTING}{run}\n"
        )
        result = run_in_image(suite, work, timeout=180)
    answers = [line[3:].partition(" ") for line in result.stdout.splitlines() if line.startswith("@@ ")]
    if len(answers) != len(commands):
        raise RuntimeError(
            f"sacctmgr of {suite} did not answer every command:\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
        )
    return [(int(status), said) for status, _, said in answers]


# slurmctld and slurmd of one host on ONE_HOST_CONF (@CTL@ its SlurmctldHost, @NODE@ its NodeName): whether each
# took its line as its own (slurmctld answers; slurmd still runs - it stops at once when it finds no NodeName), and
# the names Ansible's setup module reads on this host (hostname, nodename, fqdn: platform.node and socket.getfqdn).
_OWN_NAMES_RUN = (
    "set -u\ncp /work/slurm.conf /etc/slurm/slurm.conf\nmkdir -p /var/spool/slurmd\n"
    + _PREPARE
    + r"""slurmctld -D -i >/work/slurmctld.out 2>&1 &
ctld=$!
up=no
for _ in $(seq 1 20); do
  timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' && { up=yes; break; }
  kill -0 $ctld 2>/dev/null || break
  sleep 0.5
done
slurmd -D >/work/slurmd.out 2>&1 &
node=$!
sleep 4
kill -0 $node 2>/dev/null && running=yes || running=no
echo "@@ $up $running"
python3 -c 'import json, platform, socket; n = platform.node(); print("@@", json.dumps({"hostname": n.split(".")[0],
  "nodename": n, "fqdn": socket.getfqdn()}))'
grep -h -E 'not a valid controller|NodeName' /work/slurmctld.out /work/slurmd.out | sed 's/^/@@ /'
"""
)

ONE_HOST_CONF = """ClusterName=names
SlurmctldHost=@CTL@
SlurmUser=slurm
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
NodeName=@NODE@ CPUs=1 RealMemory=100 State=UNKNOWN
PartitionName=p Nodes=@NODE@ Default=YES
"""


@dataclass(frozen=True)
class OwnNames:
    """What slurmctld and slurmd of one host did with the names slurm.conf gives them."""

    controller_up: bool  # slurmctld took SlurmctldHost as its host
    node_found: bool  # slurmd found its NodeName (and runs)
    facts: dict[str, str]  # hostname, nodename, fqdn as Ansible's setup module reads them there
    said: str  # what the daemons said of the names


def own_names(suite: str, hostname: str, controller: str, node: str, hosts: str) -> OwnNames:
    """slurmctld (SlurmctldHost=``controller``) and slurmd (NodeName=``node``) of ``suite`` started in a throw-away
    container whose hostname is ``hostname`` and whose /etc/hosts has the lines ``hosts``."""
    with tempfile.TemporaryDirectory(prefix="gpucluster-names-") as work:
        Path(work, "slurm.conf").write_text(ONE_HOST_CONF.replace("@CTL@", controller).replace("@NODE@", node))
        Path(work, "hosts").write_text(hosts)
        Path(work, "run.sh").write_text(_OWN_NAMES_RUN)
        result = run_in_image(suite, work, timeout=120, hostname=hostname)
    lines = [line[3:] for line in result.stdout.splitlines() if line.startswith("@@ ")]
    if len(lines) < 2:
        raise RuntimeError(f"the daemons of {suite} did not report:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    up, running = lines[0].split()
    return OwnNames(up == "yes", running == "yes", json.loads(lines[1]), "\n".join(lines[2:]))


@dataclass(frozen=True)
class Restart:
    """What slurmctld did when started twice, the second time with another ClusterName or StateSaveLocation."""

    held: str  # the clustername file after the first start, as slurmctld wrote it
    first_up: bool
    second_up: bool
    said: str  # the second start's fatal lines
    jobs: tuple[str, ...]  # the job ids the second start knows (the first queued one held job)


def restart_twice(
    suite: str, slurm_conf: str, hosts: tuple[str, ...], first: tuple[str, str], second: tuple[str, str]
) -> Restart:
    """Start the real slurmctld of ``suite`` on ``slurm_conf`` (its ClusterName and StateSaveLocation lines replaced
    by ``first``: (name, directory); ``hosts``, its nodes, resolve to loopback addresses), queue a held job, stop it,
    and start it again with ``second``."""
    body = "".join(
        f"{line}\n" for line in slurm_conf.splitlines() if not line.startswith(("ClusterName=", "StateSaveLocation="))
    )
    directories = " ".join(sorted({first[1], second[1]}))
    script = (
        f"set -u\n{_PREPARE}mkdir -p {directories} && chown slurm: {directories}\n"
        + r"""for name in first second; do
  cp /work/$name.conf /etc/slurm/slurm.conf
  slurmctld -D -i >/work/out.$name 2>&1 &
  up=no
  for _ in $(seq 1 40); do
    if timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'; then up=yes; break; fi
    kill -0 $! 2>/dev/null || break
    sleep 0.5
  done
  echo "@@ $name $up"
  if [ $up = yes ]; then
    if [ $name = first ]; then
      sbatch --hold --wrap='sleep 1000' >/dev/null
      echo "@@ held $(base64 -w0 "$(scontrol show config | awk '/^StateSaveLocation/{print $3}')/clustername")"
    else
      echo "@@ jobs $(squeue --noheader --format=%i | tr '\n' ' ')"
    fi
    scontrol shutdown >/dev/null; wait
  fi
done
grep -h fatal /work/out.second
"""
    )
    with tempfile.TemporaryDirectory(prefix="gpucluster-restart-") as work:
        for name, (cluster, directory) in (("first", first), ("second", second)):
            Path(work, f"{name}.conf").write_text(f"{body}ClusterName={cluster}\nStateSaveLocation={directory}\n")
        Path(work, "hosts").write_text("".join(f"127.0.0.{i} {host}\n" for i, host in enumerate(hosts, start=2)))
        Path(work, "run.sh").write_text(script)
        result = run_in_image(suite, work, timeout=180)
    found = dict(line[3:].partition(" ")[::2] for line in result.stdout.splitlines() if line.startswith("@@ "))
    if not {"first", "second", "held"} <= found.keys():
        raise RuntimeError(f"slurmctld of {suite} did not run twice:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return Restart(
        held=base64.b64decode(found["held"]).decode(errors="replace"),
        first_up=found["first"] == "yes",
        second_up=found["second"] == "yes",
        said=" ".join(line for line in result.stdout.splitlines() if "fatal" in line),
        jobs=tuple(found.get("jobs", "").split()),
    )


# slurmctld and slurmd -N n1 in one container, with jobs across a restart: the settings both runs share ($base, less
# ClusterName and the nodes), and slurmctld started (until it answers; its arguments given to slurmctld) and stopped
# (until it is gone), each bounded.
_JOBS_PRELUDE = (
    f"set -u\n{_PREPARE}mkdir -p /var/spool/slurmd\n"
    + r"""base="SlurmctldHost=ctl
SlurmUser=slurm
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none"
start_slurmctld() {
  slurmctld -i "$@"
  for _ in $(seq 1 40); do timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP' && break; sleep 0.5; done
}
stop_slurmctld() {
  scontrol shutdown slurmctld
  for _ in $(seq 1 40); do pgrep -x slurmctld >/dev/null || break; sleep 0.5; done
}
node() { echo "NodeName=$1 NodeAddr=$2 CPUs=2 State=UNKNOWN"; }
# slurm.conf of cluster $1 with nodes n1 and n2 in partition p
two_node_conf() {
  printf 'ClusterName=%s\n%s\n%s\n%s\nPartitionName=p Nodes=n1,n2 Default=YES State=UP\n' "$1" "$base" \
    "$(node n1 127.0.0.2)" "$(node n2 127.0.0.3)" > /etc/slurm/slurm.conf
}
"""
)

_VANISHED_RUN = (
    _JOBS_PRELUDE
    + r"""two_node_conf vn
start_slurmctld
slurmd -N n1
job=$(sbatch --parsable -w n1 -o /dev/null --wrap='sleep 300')
for _ in $(seq 1 60); do [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] && break; sleep 0.5; done
echo "@@ before $(squeue -h -j "$job" -o %T) $(squeue -h -o %N -t R,S,CG,CF | tr '\n' ' ')"
stop_slurmctld
printf 'ClusterName=vn\n%s\n%s\nPartitionName=p Nodes=n2 Default=YES State=UP\n' "$base" "$(node n2 127.0.0.3)" \
  > /etc/slurm/slurm.conf
start_slurmctld
echo "@@ after $(scontrol show job "$job" | grep -o 'JobState=[A-Z_]*')"
"""
)


def job_on_a_vanished_node(suite: str) -> dict[str, str]:
    """The real slurmctld of ``suite`` runs a job on n1 (slurmd -N n1 in the same container), is stopped, and starts
    again on a slurm.conf without n1: {before: the job's state and squeue's node lists, after: its JobState}."""
    with tempfile.TemporaryDirectory(prefix="gpucluster-vanished-") as work:
        Path(work, "hosts").write_text("127.0.0.2 n1\n127.0.0.3 n2\n")
        Path(work, "run.sh").write_text(_VANISHED_RUN)
        result = run_in_image(suite, work, timeout=180)
    found = dict(line[3:].partition(" ")[::2] for line in result.stdout.splitlines() if line.startswith("@@ "))
    if not {"before", "after"} <= found.keys():
        raise RuntimeError(f"slurmctld of {suite} did not restart:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return found


_REMOVED_PARTITION_RUN = (
    _JOBS_PRELUDE
    + r"""base="ClusterName=rp
$base
NodeName=n1 NodeAddr=127.0.0.2 CPUs=2 State=UNKNOWN"
printf '%s\nPartitionName=p Nodes=n1 Default=YES State=UP\nPartitionName=old Nodes=n1 State=UP\n' "$base" \
  > /etc/slurm/slurm.conf
start_slurmctld
slurmd -N n1
running=$(sbatch --parsable -p old -n1 -o /dev/null --wrap='sleep 300')
sbatch --parsable -p old -n1 --hold -o /dev/null --wrap='sleep 300' >/dev/null
sbatch --parsable -p old,p -n1 --hold -o /dev/null --wrap='sleep 300' >/dev/null
sbatch --parsable -p p -n1 --hold -o /dev/null --wrap='sleep 300' >/dev/null
for _ in $(seq 1 60); do [ "$(squeue -h -j "$running" -o %T)" = RUNNING ] && break; sleep 0.5; done
squeue --local --noheader --format='%i|%T|%P' | sed 's/^/@@ before /'
stop_slurmctld
printf '%s\nPartitionName=p Nodes=n1 Default=YES State=UP\n' "$base" > /etc/slurm/slurm.conf
start_slurmctld
# the running job is ended through COMPLETING: wait (bounded) until no job is
for _ in $(seq 1 60); do squeue -h -t COMPLETING -o %i | grep -q . || break; sleep 0.5; done
for job in $(seq 1 4); do echo "@@ after $job $(scontrol show job "$job" | grep -o 'JobState=[A-Z_]*')"; done
"""
)

# the partition lines of the second start (the one the jobs' partition list is checked against)
REMOVED_PARTITION_LINES = ["PartitionName=p Nodes=n1 Default=YES State=UP"]


def jobs_in_a_removed_partition(suite: str) -> tuple[str, dict[str, str]]:
    """The real slurmctld of ``suite`` holds four jobs - running in partition old, pending in old, pending in old,p
    and pending in p -, is stopped, and starts again on a slurm.conf without old (REMOVED_PARTITION_LINES): (squeue's
    `%i|%T|%P` before, as the deploy's check reads it; each job id -> its JobState after)."""
    with tempfile.TemporaryDirectory(prefix="gpucluster-partition-") as work:
        Path(work, "hosts").write_text("127.0.0.2 n1\n")
        Path(work, "run.sh").write_text(_REMOVED_PARTITION_RUN)
        result = run_in_image(suite, work, timeout=180)
    before = [line[10:] for line in result.stdout.splitlines() if line.startswith("@@ before ")]
    after = dict(line[9:].partition(" ")[::2] for line in result.stdout.splitlines() if line.startswith("@@ after "))
    if len(before) != 4 or len(after) != 4:
        raise RuntimeError(f"slurmctld of {suite} did not restart:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return "\n".join(before), after


_RESERVATIONS_RUN = (
    _JOBS_PRELUDE
    + r"""two_node_conf rv
start_slurmctld
i=0
while read -r first && read -r second; do
  # shellcheck disable=SC2086
  scontrol create reservation ReservationName=first $first >/dev/null 2>&1 && made=1 || made=0
  # shellcheck disable=SC2086
  said=$(scontrol create reservation ReservationName=second $second 2>&1) && echo "@@ $i $made taken" \
    || echo "@@ $i $made refused $said"
  scontrol delete ReservationName=first >/dev/null 2>&1; scontrol delete ReservationName=second >/dev/null 2>&1
  i=$((i + 1))
done < /work/pairs
"""
)


def reservation_pairs(suite: str, pairs: list[tuple[dict[str, str], dict[str, str]]]) -> list[str]:
    """Each pair of reservations (scontrol fields: Nodes, StartTime, Duration, Flags) made one after the other by
    the real slurmctld of ``suite`` on nodes n1 and n2, both deleted before the next pair: "" where it made the
    second, else "refused" and what scontrol said. The first of each pair must be made."""
    lines = [
        " ".join(f"{key}={value}" for key, value in {**fields, "Users": "root"}.items())
        for pair in pairs
        for fields in pair
    ]
    with tempfile.TemporaryDirectory(prefix="gpucluster-reservations-") as work:
        Path(work, "hosts").write_text("127.0.0.2 n1\n127.0.0.3 n2\n")
        Path(work, "pairs").write_text("".join(f"{line}\n" for line in lines))
        Path(work, "run.sh").write_text(_RESERVATIONS_RUN)
        result = run_in_image(suite, work, timeout=180)
    found = {
        int(words[1]): (words[2], "" if words[3] == "taken" else " ".join(words[3:]))
        for words in (line.split() for line in result.stdout.splitlines() if line.startswith("@@ "))
    }
    if sorted(found) != list(range(len(pairs))) or any(made != "1" for made, _ in found.values()):
        raise RuntimeError(f"slurmctld of {suite} did not make every first reservation:\n{result.stdout[-3000:]}")
    return [found[index][1] for index in range(len(pairs))]


_LOST_STATE_RUN = (
    _JOBS_PRELUDE
    + r"""printf '%s\n%s\n%s\n' "ClusterName=ls" "$base" \
  "NodeName=n1 NodeAddr=127.0.0.2 CPUs=2 State=UNKNOWN
PartitionName=p Nodes=n1 Default=YES State=UP" > /etc/slurm/slurm.conf
start_slurmctld
slurmd -N n1
job=$(sbatch --parsable -o /dev/null --wrap='sleep 300')
for _ in $(seq 1 60); do [ "$(squeue -h -j "$job" -o %T)" = RUNNING ] && break; sleep 0.5; done
for _ in $(seq 1 20); do pgrep -a -x slurmstepd | grep -q "\[$job\.batch\]" && break; sleep 0.5; done
echo "@@ job $job"
pgrep -a -x slurmstepd | sed 's/^/@@ step /'
stop_slurmctld
mv /var/spool/slurmctld /var/spool/slurmctld.kept && mkdir /var/spool/slurmctld && chown slurm: /var/spool/slurmctld
start_slurmctld
# the node registers with the job slurmctld no longer knows: wait (bounded) until its steps are gone
for _ in $(seq 1 120); do pgrep -x slurmstepd >/dev/null || break; sleep 0.5; done
echo "@@ left $(pgrep -c -x slurmstepd)"
"""
)


def jobs_of_a_lost_state(suite: str) -> tuple[str, str, int]:
    """The real slurmctld of ``suite`` runs a job on n1 (slurmd -N n1 in the same container), is stopped, and starts
    again on an empty StateSaveLocation (a re-installed controller): (the job's id, `pgrep -a -x slurmstepd` on the
    node before, as the deploy's check reads it; the job steps still running after the restart)."""
    with tempfile.TemporaryDirectory(prefix="gpucluster-lost-state-") as work:
        Path(work, "hosts").write_text("127.0.0.2 n1\n")
        Path(work, "run.sh").write_text(_LOST_STATE_RUN)
        result = run_in_image(suite, work, timeout=180)
    lines = result.stdout.splitlines()
    found = dict(line[3:].partition(" ")[::2] for line in lines if line.startswith(("@@ job ", "@@ left ")))
    steps = "\n".join(line[8:] for line in lines if line.startswith("@@ step "))
    if not {"job", "left"} <= found.keys() or not steps:
        raise RuntimeError(f"slurmctld of {suite} did not restart:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return found["job"], steps, int(found["left"])


_LOST_DATABASE_RUN = (
    _JOBS_PRELUDE
    + "cp /work/slurm.conf /etc/slurm/slurm.conf\n"
    + _ACCOUNTING
    + r"""start_slurmctld -L /work/ctld.log
for _ in $(seq 1 40); do [ -s /var/spool/slurmctld/clustername ] && break; sleep 0.5; done
echo "@@ held $(cat /var/spool/slurmctld/clustername)"
stop_slurmctld
pkill -x slurmdbd
for _ in $(seq 1 40); do pgrep -x slurmdbd >/dev/null || break; sleep 0.5; done
mysql -e "DROP DATABASE slurm_acct_db"
echo "@@ query $(mysql -N -e 'SELECT name FROM slurm_acct_db.cluster_table WHERE deleted = 0' 2>&1 | tr '\n' ' ')"
mysql -e "CREATE DATABASE slurm_acct_db"
start_slurmdbd
start_slurmctld -L /work/ctld.log
sleep 2
pgrep -x slurmctld >/dev/null && echo "@@ up yes" || echo "@@ up no"
grep -h -o 'CLUSTER ID MISMATCH' /work/ctld.log | head -1 | sed 's/^/@@ said /'
"""
)


def slurmctld_on_a_lost_database(suite: str) -> dict[str, str]:
    """The real slurmctld of ``suite`` registers with a slurmdbd on MariaDB and is stopped; the database is dropped (a
    re-installed database host), made again empty, the cluster registered anew (as the accounting role would), and
    slurmctld started again on its own state: {held: its clustername file, query: cluster_table read as the check reads
    it after the drop, up: whether the second start runs, said: its CLUSTER ID MISMATCH where it says so}."""
    conf = ONE_NODE_CONF.replace("ClusterName=keys", "ClusterName=lost") + (
        "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=localhost\n"
    )
    with tempfile.TemporaryDirectory(prefix="gpucluster-lost-db-") as work:
        Path(work, "slurm.conf").write_text(conf)
        Path(work, "hosts").write_text("")
        Path(work, "90-slurmdbd.cnf").write_text(mariadb_cnf())
        Path(work, "run.sh").write_text(_LOST_DATABASE_RUN)
        result = run_in_image(suite, work, timeout=240)
    found = dict(line[3:].partition(" ")[::2] for line in result.stdout.splitlines() if line.startswith("@@ "))
    if not {"held", "query", "up"} <= found.keys():
        raise RuntimeError(f"slurmctld of {suite} did not restart:\n{result.stdout[-2000:]}{result.stderr[-2000:]}")
    return found


def main() -> None:
    """Load a rendered config directory into slurmctld and print what it reports (used by scripts/lab)."""
    import argparse

    from ClusterShell.NodeSet import NodeSet

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--suite", default="trixie", choices=sorted(SUITE_RELEASE))
    parser.add_argument("--config", type=Path, required=True, help="directory holding slurm.conf")
    parser.add_argument("--inventory", type=Path, required=True)
    args = parser.parse_args()

    from tests.helpers.inventory import load_inventory

    _spec, groups = load_inventory(args.inventory)
    controller = groups["controllers"][0]
    readback = load_configs(args.suite, args.config.resolve(), groups["all"], controller, ("fabric", "nvlink"))
    gpus = sum(int(n["Gres"].rsplit(":", 1)[1]) for n in readback.nodes.values() if n.get("Gres", "(null)") != "(null)")
    print(f"slurmctld {SUITE_RELEASE[args.suite]} ({args.suite}) loaded {args.config}:")
    print(f"  {len(readback.nodes)} nodes, {gpus} GPUs")
    for name, part in readback.partitions.items():
        print(f"  partition {name}: {part['TotalNodes']} nodes {part['Nodes']} MaxTime={part['MaxTime']}")
    switches = readback.topology or readback.named_topologies.get("fabric", [])
    leaves = [s for s in switches if s.get("Level") == "0"]
    print(f"  topology: {len(switches)} switches, {len(leaves)} leaves over {NodeSet.fromlist(readback.nodes)}")


if __name__ == "__main__":
    main()
