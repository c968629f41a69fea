"""A QOS's flags and preemption mode (cluster_qos.<name>.flags, .preempt_mode) as the real sacctmgr of 22.05, 24.11
and 26.05 takes them: a word it does not know ("Unknown QOS flag used in", "Bad Preempt Mode given") stops the
accounting role after the daemons were set up, so the validation refuses exactly those before any host is touched."""

from __future__ import annotations

from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import inventory_errors

from lab.slurmctld_check import SUITE_RELEASE, sacctmgr_answers
from tests.unit.factory import valid_groups, valid_spec

pytestmark = pytest.mark.slurmctld

# cluster_qos.<name> -> the sacctmgr arguments the accounting role gives for it
QOS: list[dict[str, Any]] = [
    {"flags": ["DenyOnLimit"]},
    {"flags": ["denyonlimit", "NoReserve", "OverPartQOS"]},
    {"flags": ["DenyOnLimt"]},
    {"flags": ["Relative"]},
    {"flags": ["NoDecay", "UsageFactorSafe", "RequiresReservation"]},
    {"preempt_mode": "requeue"},
    {"preempt_mode": "REQUEU"},
    {"preempt_mode": "cluster"},
    {"preempt_mode": "suspend"},
]


def _arguments(name: str, qos: dict[str, Any]) -> str:
    words = [f"flags={','.join(qos['flags'])}"] if "flags" in qos else []
    words += [f"preemptmode={qos['preempt_mode']}"] if "preempt_mode" in qos else []
    return f"add qos {name} {' '.join(words)}"


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_sacctmgr_takes_the_qos_words_the_validation_takes_and_only_those(docker_lab: None, suite: str) -> None:
    answers = sacctmgr_answers(suite, [_arguments(f"q{i}", qos) for i, qos in enumerate(QOS)])
    verdicts = []
    for i, (qos, (status, said)) in enumerate(zip(QOS, answers, strict=True)):
        spec, groups = valid_spec(), valid_groups()
        spec.update(slurm_release=SUITE_RELEASE[suite])
        spec.pop("fabric")
        spec["qos"] = {**spec.get("qos", {}), f"q{i}": qos}
        refused = [error for error in inventory_errors(spec, groups) if f"cluster_qos.q{i}." in error]
        verdicts.append((qos, refused, status, said))
    wrong = [verdict for verdict in verdicts if bool(verdict[1]) != (verdict[2] != 0)]
    assert not wrong, wrong
    assert {status != 0 for _, _, status, _ in verdicts} == {True, False}
