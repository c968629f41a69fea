"""Words of slurm.conf as the real slurmctld of 22.05, 24.11 and 26.05 reads them: PrologFlags
(cluster_job_scripts.prolog_flags), SelectTypeParameters (cluster_scheduling.select_type_parameters), the values
of a partition's options (cluster_partitions[].options) and of cluster_slurm_config's keys. A word slurmctld does not
know - a misspelling, one of a later release or one a release removed -, a combination it refuses, or a value it
cannot read stop it ("PrologFlags invalid", "Bad SelectTypeParameter", "is not a valid number"), so the validation
refuses exactly those before any host is touched; what it takes, slurmctld starts with."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils.live_state import config_value
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import config_from_inventory, inventory_errors

from lab.slurmctld_check import (
    ONE_NODE_CONF,
    SUITE_RELEASE,
    controller_reached,
    shown_config,
    small_files,
    small_slurmctld,
)
from tests.unit.factory import standalone_spec

pytestmark = pytest.mark.slurmctld

Spec = dict[str, Any]
Case = tuple[Callable[[Spec], None], str, Callable[[str], str]]


def _line(key: str, value: str) -> Callable[[str], str]:
    """slurm.conf with ``key`` set to ``value`` (the model writes the file only from an inventory it takes)."""
    return lambda conf: (
        "".join(f"{line}\n" for line in conf.splitlines() if not line.startswith(f"{key}=")) + (f"{key}={value}\n")
    )


def _flags(flags: list[str]) -> Case:
    return (
        lambda spec: spec.update(job_scripts={"prolog_flags": flags}),
        "prolog_flags",
        _line("PrologFlags", ",".join(flags)),
    )


def _select(words: list[str]) -> Case:
    return (
        lambda spec: spec.update(scheduling={"select_type_parameters": words}),
        "select_type_parameters",
        _line("SelectTypeParameters", ",".join(words)),
    )


def _options(options: dict[str, Any]) -> Case:
    written = " ".join(
        f"{key}={('YES' if value else 'NO') if isinstance(value, bool) else value}" for key, value in options.items()
    )
    return (
        lambda spec: spec["partitions"][0].update(options=options),
        ".options.",
        lambda conf: "".join(
            f"{line} {written}\n" if line.startswith("PartitionName=") else f"{line}\n" for line in conf.splitlines()
        ),
    )


def _oversubscribe(value: str) -> Case:
    """A partition's oversubscribe: slurmctld starts either way, but ignores a count it cannot use ("Ignoring bad
    OverSubscribe value") - the partition then does not oversubscribe, which the case reads as not taken."""
    return (
        lambda spec: spec["partitions"][0].update(oversubscribe=value),
        ".oversubscribe",
        lambda conf: "".join(
            f"{line} OverSubscribe={value}\n" if line.startswith("PartitionName=") else f"{line}\n"
            for line in conf.splitlines()
        ),
    )


def _config(key: str, value: object) -> Case:
    return (
        lambda spec: spec.update(slurm_config={key: value}),
        f"cluster_slurm_config.{key}",
        _line(key, str(value)),
    )


CASES: list[Case] = [
    _flags(["alloc", "Contain"]),
    _flags(["Alloc", "Contian"]),
    _flags(["Alloc", "NoHold"]),
    _flags(["NoHold", "X11"]),
    _flags(["ForceRequeueOnFail"]),
    _flags(["RunInJob"]),
    _flags(["DeferBatch", "Serial"]),
    _select(["cr_core_memory", "CR_Pack_Nodes", "CR_ONE_TASK_PER_CORE"]),
    _select(["CR_Core_Memoy"]),
    _select(["CR_Core", "CR_CPU"]),
    _select(["CR_LLN"]),
    _select(["CR_Socket", "CR_ALLOCATE_FULL_SOCKET"]),
    _select(["CR_Core_Memory", "LL_SHARED_GRES", "ONE_TASK_PER_SHARING_GRES"]),
    _select(["CR_Core_Memory", "CR_NO_DIST_TOPO_BLOCK"]),
    _options({"MaxMemPerNode": "UNLIMITED", "GraceTime": 300, "Hidden": True, "LLN": "no"}),
    _options({"MaxMemPerNode": "64G"}),
    _options({"GraceTime": "00:05:00"}),
    _options({"PriorityJobFactor": 70000}),
    _options({"ExclusiveUser": "maybe"}),
    _options({"ResumeTimeout": "30s"}),
    _options({"MaxMemPerNode": "100k"}),
    _options({"MinNodes": -1}),
    _oversubscribe("YES:1"),
    _oversubscribe("FORCE:0"),
    _oversubscribe("FORCE:1"),
    _oversubscribe("YES:4"),
    # cluster_slurm_config values as the release's parser reads them (scripts/slurm_release_data.py tried each form)
    _config("MessageTimeout", "30s"),
    _config("SlurmdTimeout", 600),
    _config("ReturnToService", -1),
    _config("MaxJobCount", "100k"),
    _config("MinJobAge", "UNLIMITED"),
    _config("FirstJobId", "UNLIMITED"),
    _config("UsePAM", "maybe"),
    _config("DisableRootJobs", "yes"),
    _config("SelectType", "select/linear"),
    _config("SelectType", "select/cons_tres"),
    _config("SlurmctldPort", "6820-6817"),
    _config("SlurmctldPort", "6817-6818"),
]


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_slurmctld_starts_on_the_words_the_validation_takes_and_only_on_those(docker_lab: None, suite: str) -> None:
    verdicts = []
    spec, groups = standalone_spec(SUITE_RELEASE[suite])
    slurm_conf, gres, _ = small_files(config_from_inventory(spec, groups))
    for change, key, written in CASES:
        changed = copy.deepcopy(spec)
        change(changed)
        refused = [error for error in inventory_errors(changed, groups) if key in error]
        started, output = small_slurmctld(suite, written(slurm_conf), gres, tuple(groups["compute"]))
        started = started and "Ignoring bad OverSubscribe value" not in output
        verdicts.append((refused, started, output[-800:]))
    wrong = [(refused, started, out) for refused, started, out in verdicts if bool(refused) == started]
    assert not wrong, wrong
    # not trivial on any release: slurmctld refuses some and takes others
    assert {bool(refused) for refused, _, _ in verdicts} == {True, False}


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_srun_port_ranges_slurm_ignores_or_users_cannot_take_are_refused(docker_lab: None, suite: str) -> None:
    """Slurm ignores an SrunPortRange it cannot read without a word (scontrol show config: 0-0) and srun then listens
    on any port, which the host firewall closes; one below 1024 it takes, but srun runs as the job's user."""
    ranges = ["60001-63000", "60001-60001", "60001", "61000-60001", "60001:63000", "0-100", "1024-2048"]
    spec, groups = standalone_spec(SUITE_RELEASE[suite])
    read = {}
    for given in ranges:
        shown = shown_config(suite, f"{ONE_NODE_CONF}SrunPortRange={given}\n")
        read[given] = config_value(shown, "SrunPortRange")
        assert re.fullmatch(r"\d+-\d+", read[given]), (given, shown)
    for given in ranges:
        changed = copy.deepcopy(spec)
        changed["slurm_config"] = {"SrunPortRange": given}
        refused = [error for error in inventory_errors(changed, groups) if "SrunPortRange" in error]
        unusable = read[given] == "0-0" or int(read[given].split("-")[0]) < 1024
        assert bool(refused) == unusable, (given, read[given], refused)
    assert read["60001-63000"] == "60001-63000" and read["60001-60001"] == "0-0"


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_an_ipv6_controller_address_is_refused_where_slurm_cannot_reach_it(docker_lab: None, suite: str) -> None:
    """A controller's address in slurm.conf (SlurmctldHost=name(address), as cluster_controller_addresses writes it;
    SlurmctldAddr, a pair's VIP, alike) that is IPv6: Slurm's commands reach slurmctld there only with
    CommunicationParameters=EnableIPv6, and the validation refuses exactly the others."""
    spec, groups = standalone_spec(SUITE_RELEASE[suite])
    controller = groups["controllers"][0]
    cases = [("127.0.0.1", ""), ("::1", ""), ("::1", "EnableIPv6"), ("::1", "enableipv6")]
    confs = [
        ONE_NODE_CONF.replace("SlurmctldHost=ctl\n", f"SlurmctldHost=ctl({address})\n")
        + (f"CommunicationParameters={parameters}\n" if parameters else "")
        for address, parameters in cases
    ]
    with ThreadPoolExecutor(len(confs)) as pool:  # each waits seconds on its slurmctld
        answers = list(pool.map(lambda conf: controller_reached(suite, conf), confs))
    for (address, parameters), (reached, said) in zip(cases, answers, strict=True):
        changed = copy.deepcopy(spec)
        changed["controller_addresses"] = {controller: address}
        changed["slurm_config"] = {"CommunicationParameters": parameters} if parameters else {}
        refused = [error for error in inventory_errors(changed, groups) if "IPv6" in error]
        assert bool(refused) != reached, (address, parameters, said, refused)
    assert [reached for reached, _ in answers] == [True, False, True, True]


@pytest.mark.parametrize("suite", sorted(SUITE_RELEASE))
def test_an_option_slurm_passes_over_is_refused_and_a_retired_one_stops_slurmctld(docker_lab: None, suite: str) -> None:
    """SchedulerParameters is read option by option: slurmctld starts on a misspelt one (bf_contine) without a word -
    why the validation refuses it, as it refuses max_job_bf, at which slurmctld (sched/backfill) stops; the right
    spelling passes both."""
    spec, groups = standalone_spec(SUITE_RELEASE[suite])
    slurm_conf, gres, _ = small_files(config_from_inventory(spec, groups))
    base = re.sub(r"^SchedulerParameters=.*\n", "", slurm_conf, flags=re.M)
    cases = {"bf_continue": (False, True), "bf_contine": (True, True), "max_job_bf=10": (True, False)}
    for option, (refused_here, starts) in cases.items():
        changed = copy.deepcopy(spec)
        changed["scheduling"] = {**changed.get("scheduling", {}), "scheduler_parameters": [option]}
        refused = [error for error in inventory_errors(changed, groups) if "scheduler_parameters" in error]
        started, output = small_slurmctld(
            suite, f"{base}SchedulerParameters={option}\n", gres, tuple(groups["compute"])
        )
        assert (bool(refused), started) == (refused_here, starts), (option, refused, output[-1500:])
