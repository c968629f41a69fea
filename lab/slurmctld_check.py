"""Load rendered configs into the real slurmctld of a Debian release, in a throw-away container.

The container runs munged and ``slurmctld -D`` from Debian's packages on the rendered slurm.conf,
gres.conf and topology file, with /etc/hosts entries for every node (slurmctld resolves each node at
start), then reads back what the daemon understood with scontrol.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

SUITE_RELEASE = {"bookworm": "22.05", "trixie": "24.11", "sid": "26.05"}
IMAGE = "gpucluster/lab:{suite}"
_PAIR = re.compile(r"(\w+)=(\S*)")

# Accounting is exercised with a real slurmdbd in the lab. Here slurmctld runs without one: it stops at
# start when a configured slurmdbd is unreachable and no state exists, and TRES such as gres/gpu (and
# their priority weights) need slurmdbd, and 26.05 refuses partition QOS it cannot look up, so the
# accounting lines and the partitions' QOS/AllowQos are taken out before it starts. Every node name
# resolves to a loopback address of the container, where this slurmctld itself listens, so a backup
# SlurmctldHost would be this daemon again: only the primary's line is kept, and a pair's SlurmctldAddr
# (its virtual IP) becomes the loopback, so the key is still read and no client call leaves the container
# (failover is drilled in the production lab). (No --network none: slurmctld's listening socket needs an
# address beside the loopback - getaddrinfo with AI_ADDRCONFIG finds none without it.)
RUN_SCRIPT = r"""
set -eu
cp /input/* /etc/slurm/
sed -i -E -e '/^(AccountingStorage[A-Za-z]*|PriorityWeightTRES)=/d' \
  -e '/^PartitionName=/s/ (QOS|AllowQos)=[^ ]*//g' -e '0,/^SlurmctldHost=/!{/^SlurmctldHost=/d}' \
  -e 's/^SlurmctldAddr=.*/SlurmctldAddr=127.0.0.1/' \
  /etc/slurm/slurm.conf
cat /work/hosts >> /etc/hosts
mkdir -p /run/munge /var/log/slurm /var/spool/slurmctld
chown munge: /run/munge /var/log/munge /var/lib/munge /etc/munge
chown slurm: /var/log/slurm /var/spool/slurmctld
[ -s /etc/munge/munge.key ] || runuser -u munge -- mungekey -c
runuser -u munge -- munged
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
cp /var/log/slurm/slurmctld.log /work/slurmctld.log
kill $! ; wait || true
"""


@dataclass
class Readback:
    """What slurmctld reports: node and partition records, topology lines and its log."""

    nodes: dict[str, dict[str, str]]
    partitions: dict[str, dict[str, str]]
    topology: list[dict[str, str]]
    named_topologies: dict[str, list[dict[str, str]]]
    config: str
    log: str


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
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


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
