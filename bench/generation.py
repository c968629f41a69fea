"""In-process generation benchmark: the cluster model vs Jinja loops over the same inventory, side by side.

For each size it times, on the same inventory loaded by Ansible's own InventoryManager:
  model     build_cluster + cluster_config (what playbooks/render.yml computes)
  plain     a plain Jinja2 loop over plain data (bench/templates/slurm_nodes_plain.j2): the node, partition and
            gres lines per host from the node type and a leaf switch per 32 hosts - no validation, no folding,
            no Ansible (issue 26: the model in-process no slower than this)
  hostvars  a slurm.conf node/partition/gres template that loops over groups['compute'] and reads
            hostvars[host] for every node through Ansible's Templar, the way common Slurm roles do
Run: .venv/bin/python bench/generation.py [--sizes 160 1280 12800] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import jinja2

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "collections"), str(ROOT)]

from ansible.inventory.manager import InventoryManager  # noqa: E402
from ansible.parsing.dataloader import DataLoader  # noqa: E402
from ansible.template import Templar, trust_as_template  # noqa: E402
from ansible.vars.hostvars import HostVars  # noqa: E402
from ansible.vars.manager import VariableManager  # noqa: E402
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import _fold  # noqa: E402
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster  # noqa: E402
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import cluster_config  # noqa: E402

from bench.gen_inventory import write_inventory  # noqa: E402
from bench.timing import best_of  # noqa: E402
from tests.helpers.inventory import load_inventory  # noqa: E402

# The per-host loop of common roles (bench/templates/slurm_nodes_hostvars.j2): one NodeName line per host
# from that host's variables, partitions listing every host, and gres.conf per host.
HOSTVARS_TEMPLATE = (Path(__file__).parent / "templates" / "slurm_nodes_hostvars.j2").read_text()
PLAIN_TEMPLATE = jinja2.Environment(autoescape=False).from_string(
    (Path(__file__).parent / "templates" / "slurm_nodes_plain.j2").read_text()
)


def bench_size(nodes: int, repeat: int, workdir: Path) -> dict[str, float]:
    inventory = write_inventory(workdir / f"n{nodes}", nodes)
    spec, groups = load_inventory(inventory)

    def model_run() -> object:
        _fold.cache_clear()  # every run folds from scratch: no result is reused across runs
        return cluster_config(build_cluster(spec, groups))

    model = best_of(repeat, model_run)

    def plain_loop() -> str:
        rendered = PLAIN_TEMPLATE.render(hosts=groups["compute"], nt=spec["node_types"]["h100"])
        assert rendered.count("NodeName=") == 2 * nodes, "the plain template did not render every node"
        return rendered

    plain = best_of(repeat, plain_loop)

    loader = DataLoader()
    manager = InventoryManager(loader=loader, sources=[str(inventory)])
    variables = VariableManager(loader=loader, inventory=manager)
    HostVars(inventory=manager, variable_manager=variables, loader=loader)  # as the task queue manager does

    def hostvars_loop() -> str:
        templar = Templar(loader=loader, variables=variables.get_vars(host=manager.get_host("s-ctl01")))
        rendered = str(templar.template(trust_as_template(HOSTVARS_TEMPLATE)))
        assert rendered.count("NodeName=") == 2 * nodes, "the baseline template did not render every node"
        return rendered

    loop = best_of(max(1, repeat if nodes <= 1280 else 1), hostvars_loop)
    return {
        "nodes": nodes,
        "gpus": nodes * 8,
        "model_s": round(model, 4),
        "plain_loop_s": round(plain, 4),
        "model_over_plain": round(model / plain, 2),
        "hostvars_loop_s": round(loop, 3),
        "speedup": round(loop / model, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[160, 1280, 12800])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        for nodes in args.sizes:
            print(json.dumps(bench_size(nodes, args.repeat, Path(work))), flush=True)


if __name__ == "__main__":
    main()
