"""Write a synthetic inventory of N nodes x 8 H100 on a 3-tier fat-tree (for scale tests and benches).

python bench/gen_inventory.py --nodes 12800 --out build/inventories/n12800
"""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path


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
            login:
              hosts:
                s-login[01:04]:
            storage:
              hosts: {{}}
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
        cluster_node_types:
          h100:
            group: compute_h100
            sockets: 2
            cores_per_socket: 56
            threads_per_core: 2
            real_memory_mb: 2000000
            features: [ib_ndr]
            gpu: {{type: h100, count: 8}}
        cluster_qos:
          normal: {{}}
        cluster_partitions:
          - name: gpu
            node_types: [h100]
            default: true
            max_time: "2-00:00:00"
            qos: normal
        cluster_accounting:
          enforce: [associations, limits, qos]
        cluster_fabric:
          topology: tree
          fat_tree: {{tiers: 3, nodes_per_leaf: {nodes_per_leaf}, leaves_per_pod: {leaves_per_pod}}}
        """)
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--release", default="24.11")
    args = parser.parse_args()
    print(write_inventory(args.out, args.nodes, args.release))


if __name__ == "__main__":
    main()
