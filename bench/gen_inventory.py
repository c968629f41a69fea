"""Write a synthetic inventory of N nodes x 8 H100 on a 3-tier fat-tree (for scale tests and benches).

python bench/gen_inventory.py --nodes 12800 --out build/inventories/n12800
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path


def _h100_cluster(gpu: str, max_time: str, enforce: str, fat_tree: str) -> str:
    """The cluster.yml part both generators share: the 8 x H100 node type, one QOS, one partition, the
    accounting enforcement and the 3-tier fat-tree (YAML flow values given as text)."""
    return textwrap.dedent(f"""\
        cluster_node_types:
          h100:
            group: compute_h100
            sockets: 2
            cores_per_socket: 56
            threads_per_core: 2
            real_memory_mb: 2000000
            features: [ib_ndr]
            gpu: {gpu}
        cluster_qos:
          normal: {{}}
        cluster_partitions:
          - name: gpu
            node_types: [h100]
            default: true
            max_time: "{max_time}"
            qos: normal
        cluster_accounting:
          enforce: [{enforce}]
        cluster_fabric:
          topology: tree
          fat_tree: {fat_tree}
        """)


def _fence_device(host: str, bmc: str) -> str:
    return f'{host}: {{agent: fence_ipmilan, ip: {bmc}, username: fence, password: "{{{{ vault_bmc_password }}}}"}}'


# The secrets a site keeps in its Ansible Vault: stand-ins in a generated inventory (benches and tests run it on the
# controller only; a real site writes its own, encrypted).
STAND_IN_SECRETS = {
    "vault_bmc_password": "bmc-stand-in-0",
    "vault_galera_sst_password": "sst-stand-in-0123456789",
    "vault_accounting_db_password": "db-stand-in-0123456789",
    # read under their own names, as a site's vault may hold them (the monitoring role's, validate.yml requires them)
    "monitoring_mysqld_exporter_db_password": "exporter-stand-in-0123",
    "monitoring_grafana_admin_password": "grafana-stand-in-0123",
}


def _write_ha(out: Path, pairs: dict[str, dict[str, str]], vip: str = "", secrets: bool = True) -> None:
    """group_vars of the production tier, as the sample inventories have it: each controller pair under Pacemaker
    with its BMCs (``pairs``: group_vars directory -> host -> BMC address), Galera under slurmdbd; secrets from
    the site's vault."""
    (out / "group_vars" / "all" / "ha.yml").write_text(
        "---\n# The controller pairs under Pacemaker, Galera under slurmdbd (docs/production.md); secrets: the vault.\n"
        "slurm_ctld_manager: pacemaker\n"
        + (f"pacemaker_vip: {vip}\n" if vip else "")
        + "pacemaker_vip_cidr_netmask: 16\n"
        'galera_sst_password: "{{ vault_galera_sst_password }}"\n'
        'accounting_db_password: "{{ vault_accounting_db_password }}"\n'
    )
    (out / "group_vars" / "all" / "firewall.yml").write_text(
        "---\n# The host firewall (roles/firewall): every host accepts only what its services need (docs/ports.md). "
        "Put your\n# administrators' networks here; without them SSH, Prometheus, Alertmanager, Grafana and the "
        "REST API answer anyone.\nfirewall_enabled: true\nfirewall_admin_networks: [10.0.0.0/24]\n"
    )
    if secrets:
        lines = "".join(f"{key}: {value}\n" for key, value in STAND_IN_SECRETS.items())
        (out / "group_vars" / "all" / "vault.yml").write_text(f"---\n# Stand-ins (bench/gen_inventory.py).\n{lines}")
    for directory, bmcs in pairs.items():
        (out / "group_vars" / directory).mkdir(parents=True, exist_ok=True)
        devices = "\n".join(f"  {_fence_device(host, bmc)}" for host, bmc in bmcs.items())
        (out / "group_vars" / directory / "fencing.yml").write_text(f"---\npacemaker_fence_devices:\n{devices}\n")


def write_inventory(
    out: Path, nodes: int, release: str = "24.11", nodes_per_leaf: int = 32, leaves_per_pod: int = 16
) -> Path:
    """Create hosts.yml and group_vars/all/cluster.yml under ``out``; return ``out``."""
    width = max(4, len(str(nodes)))
    (out / "group_vars" / "all").mkdir(parents=True, exist_ok=True)
    (out / "hosts.yml").write_text(
        textwrap.dedent(f"""\
        all:
          children:
            controllers:
              hosts:
                s-ctl[01:02]:
            dbd:
              hosts:
                s-dbd[01:02]:
            galera:
              hosts:
                s-dbd[01:03]:
            login:
              hosts:
                s-login[01:04]:
            storage:
              hosts:
                s-nfs01:
            compute:
              children:
                compute_h100:
                  hosts:
                    gpu[{1:0{width}d}:{nodes:0{width}d}]:
        """)
    )
    (out / "group_vars" / "all" / "cluster.yml").write_text(
        textwrap.dedent(f"""\
        ---
        cluster_name: scale
        cluster_slurm_release: "{release}"
        """)
        + _h100_cluster(
            gpu="{type: h100, count: 8}",
            max_time="2-00:00:00",
            enforce="associations, limits, qos",
            fat_tree=f"{{tiers: 3, nodes_per_leaf: {nodes_per_leaf}, leaves_per_pod: {leaves_per_pod}}}",
        )
    )
    _write_ha(out, {"all": {"s-ctl01": "10.11.0.11", "s-ctl02": "10.11.0.12"}}, vip="10.10.0.10")
    return out


def write_federation(
    out: Path, pods: int, nodes_per_pod: int, release: str = "26.05", stand_in_secrets: bool = True
) -> Path:
    """A federation of ``pods`` pods of ``nodes_per_pod`` nodes x 8 H100, each pod with its controller pair
    and two login nodes on a 3-tier fat-tree, one Galera + slurmdbd tier shared (inventories/federation-100k)."""
    width = max(4, len(str(nodes_per_pod)))
    names = [f"pod{i}" for i in range(1, pods + 1)]
    lines = [
        "---",
        f"# Generated by bench/gen_inventory.py --pods {pods} --nodes-per-pod {nodes_per_pod}: "
        f"{pods * nodes_per_pod:,} nodes x 8 H100 = {pods * nodes_per_pod * 8:,} GPUs",
        f"# in {pods} pods (Slurm clusters) of one federation on one accounting tier.",
        "all:",
        "  children:",
    ]
    for role, pattern in (("controllers", "ctl[01:02]"), ("login", "login[01:02]")):
        lines += [f"    {role}:", "      children:"]
        for i, pod in enumerate(names, start=1):
            lines += [f"        {pod}_{role}:", "          hosts:", f"            f-p{i}-{pattern}:"]
    lines += [
        "    dbd:",
        "      hosts:",
        "        f-db[01:02]:",
        "    galera:",
        "      hosts:",
        "        f-db[01:03]:",
        "    monitoring:",
        "      hosts:",
        "        f-mon01:",
        "    storage:",
        "      hosts: {}",
        "    compute:",
        "      children:",
        "        compute_h100:",
        "          children:",
    ]
    for i, pod in enumerate(names, start=1):
        lines += [
            f"            {pod}_h100:",
            "              hosts:",
            f"                f-p{i}-gpu[{1:0{width}d}:{nodes_per_pod:0{width}d}]:",
        ]
    for pod in names:
        lines += [
            f"    {pod}:",
            "      children:",
            f"        {pod}_controllers:",
            f"        {pod}_login:",
            f"        {pod}_h100:",
        ]
    (out / "group_vars" / "all").mkdir(parents=True, exist_ok=True)
    (out / "hosts.yml").write_text("\n".join(lines) + "\n")
    pod_lines = "\n".join(f"    {pod}: {{controller_vip: 10.10.{i}.10}}" for i, pod in enumerate(names, start=1))
    (out / "group_vars" / "all" / "cluster.yml").write_text(
        textwrap.dedent(f"""\
        ---
        # Generated by bench/gen_inventory.py (see hosts.yml). Each pod's fabric: 3-tier fat-tree, 32 nodes per
        # leaf, 10 leaves per spine block.
        cluster_name: fedx
        cluster_slurm_release: "{release}"
        cluster_federation:
          name: fedx
          pods:
        """)
        + pod_lines
        + "\n"
        + _h100_cluster(
            gpu="{type: h100, count: 8, autodetect: nvml}",
            max_time="3-00:00:00",
            enforce="associations, limits, qos, safe",
            fat_tree="{tiers: 3, nodes_per_leaf: 32, leaves_per_pod: 10}",
        )
    )
    _write_ha(
        out,
        {pod: {f"f-p{i}-ctl01": f"10.11.{i}.11", f"f-p{i}-ctl02": f"10.11.{i}.12"} for i, pod in enumerate(names, 1)},
        secrets=stand_in_secrets,
    )
    (out / "group_vars" / "all" / "storage.yml").write_text(
        "---\n# /home, /apps and /data come from the site's filer, not from an inventory host (the storage group is "
        "empty):\n# every host mounts them (the nfs role; docs/deploy.md).\n"
        "nfs_filer_mounts:\n"
        '  - {path: /home, src: "filer01:/vol/home"}\n'
        '  - {path: /apps, src: "filer01:/vol/apps", opts: "ro,hard,noatime,vers=4.2,_netdev"}\n'
        '  - {path: /data, src: "filer02:/vol/data"}\n'
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, help="one cluster of N nodes")
    parser.add_argument("--pods", type=int, help="a federation of this many pods")
    parser.add_argument("--nodes-per-pod", type=int, default=1600)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--release", default=None)
    parser.add_argument("--vault", action="store_true", help="no stand-in secrets: the site's vault holds them")
    args = parser.parse_args()
    if args.pods:
        print(write_federation(args.out, args.pods, args.nodes_per_pod, args.release or "26.05", not args.vault))
    else:
        print(write_inventory(args.out, args.nodes, args.release or "24.11"))


if __name__ == "__main__":
    main()
