"""The larger sweep of the property tests: N generated inventories (tests/helpers/generated.py) validated,
rendered and loaded by the real slurmctld of their release, and N single mutations of a string value checked
(refused naming the variable, or rendered without a character that changes a Slurm file). Also the validation's
own time on the 102,400-GPU federation sample (issue 23's target: under 1 s in-process).

Run after lab/images/build.sh:  .venv/bin/python bench/property_sweep.py [--cases 40] [--seed 1]
Appends one line to bench/results/property_sweep.jsonl.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "collections"), str(ROOT)]

from ansible_collections.gpucluster.cluster.plugins.module_utils.render import (  # noqa: E402
    config_from_inventory,
    inventory_errors,
)
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

from lab.slurmctld_check import SUITE_RELEASE, small_slurmctld  # noqa: E402
from tests.helpers.generated import inventory, string_leaves  # noqa: E402
from tests.helpers.inventory import load_inventory  # noqa: E402
from tests.integration.test_generated_inventories import loadable  # noqa: E402
from tests.unit.test_properties import NASTY, clean  # noqa: E402

SUITE = {release: suite for suite, release in SUITE_RELEASE.items()}


def sweep(cases: int, rng: random.Random) -> Counter[str]:
    found: Counter[str] = Counter()

    @seed(rng.randrange(2**32))
    @settings(max_examples=cases, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(inventory())
    def run(case: tuple[dict, dict]) -> None:
        spec, groups = case
        if inventory_errors(spec, groups):
            found["valid inventory refused"] += 1
            return
        slurm_conf, gres_conf, files = loadable(spec, groups)
        started, _ = small_slurmctld(
            SUITE[spec["slurm_release"]], slurm_conf, gres_conf, tuple(groups["compute"]), files=files
        )
        found["loaded by slurmctld" if started else "refused by slurmctld"] += 1
        path = rng.choice(list(string_leaves(spec)))
        target = spec
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] += rng.choice(NASTY)
        errors = inventory_errors(spec, groups)
        if errors:
            found[
                "mutation refused naming it"
                if any(e.startswith(f"cluster_{path[0]}") for e in errors)
                else "mutation refused elsewhere"
            ] += 1
        else:
            found[
                "mutation rendered clean" if clean(config_from_inventory(spec, groups)) else "mutation rendered UNSAFE"
            ] += 1

    run()
    return found


def validation_seconds() -> float:
    spec_groups = load_inventory(ROOT / "inventories" / "federation-100k")
    start = time.perf_counter()
    assert inventory_errors(*spec_groups) == []
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    start = time.monotonic()
    found = sweep(args.cases, random.Random(args.seed))
    record = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cases": args.cases,
        "seed": args.seed,
        "found": dict(found),
        "seconds": round(time.monotonic() - start, 1),
        "validation_102400_gpus_s": round(validation_seconds(), 3),
    }
    print(json.dumps(record))
    with (ROOT / "bench" / "results" / "property_sweep.jsonl").open("a") as handle:
        handle.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
