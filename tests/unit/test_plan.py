"""The run's plan (module_utils/plan.py): built once from the model by the opening validation, taken by the roles
while it stands for the same inventory, never used for another."""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible_collections.gpucluster.cluster.plugins.module_utils import plan as plan_module
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.plan import (
    build_plan,
    fingerprint,
    host_pod,
    node_gpu,
    plan_for,
    validated_plan,
)
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.cluster import (
    cluster_validation,
    job_script_errors,
    job_submit_errors,
)

from .factory import valid_groups, valid_spec
from .test_federation import fed_groups, fed_spec


def test_the_plan_holds_what_the_roles_read_of_the_model() -> None:
    plan = build_plan(valid_spec(), valid_groups())
    assert plan["configs"][""]["name"] == "lab" and "slurm.conf" in plan["configs"][""]["files"]
    assert plan["user_views"][""]["partitions"]
    assert node_gpu(plan, "gpu01")["count"] == 4 and "hosts" not in node_gpu(plan, "gpu01")
    assert node_gpu(plan, "cpu01") == {} and node_gpu(plan, "nowhere") == {}
    assert plan["firewall"]["ports"][""]["slurmd_port"] == 6818
    assert host_pod(plan, "gpu01") == "" and host_pod(plan, "db01") is None
    assert plan["monitoring"][""]["controllers"] == ["ctl01"]


def test_the_hosts_own_view_does_not_change_the_fingerprint_the_groups_do() -> None:
    spec, groups = fed_spec(), fed_groups()
    assert fingerprint({**spec, "pod": "pod1"}, groups) == fingerprint({**spec, "pod": "pod2"}, groups)
    # a pod's hosts may see their pod's VIP as the inventory-wide one, which no pod's model reads
    assert fingerprint({**spec, "controller_vip": "10.10.1.10"}, groups) == fingerprint(spec, groups)
    plan = build_plan(spec, groups)
    assert build_plan({**spec, "controller_vip": "10.10.1.10"}, groups)["configs"] == plan["configs"]
    one = valid_spec()
    assert fingerprint({**one, "controller_vip": "10.0.0.5"}, valid_groups()) != fingerprint(one, valid_groups())
    assert fingerprint(spec, groups) != fingerprint(spec, {**groups, "gpucluster_new": ["p1-gpu01"]})
    changed = fed_spec()
    changed["name"] = "other"
    assert fingerprint(spec, groups) != fingerprint(changed, groups)


def test_a_held_plan_is_taken_only_for_its_own_inventory(monkeypatch: pytest.MonkeyPatch) -> None:
    spec, groups = valid_spec(), valid_groups()
    held = build_plan(spec, groups)
    builds: list[int] = []
    real = plan_module.build_pods

    def counting(*args: object) -> object:
        builds.append(1)
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(plan_module, "build_pods", counting)
    taken, built = plan_for({**spec, "pod": ""}, groups, held)
    assert (taken, built, builds) == (held, False, [])
    # another inventory (a node type's count changed), a plan of another format, or none: built anew
    other = valid_spec()
    other["node_types"]["h100"]["gpu"]["count"] = 8
    for held_plan, given in ((held, other), ({**held, "format": 0}, spec), (None, spec), ("text", spec)):
        fresh, built = plan_for(given, groups, held_plan)
        assert built
    assert len(builds) == 4
    assert fresh["configs"] == held["configs"]
    assert node_gpu(plan_for(other, groups, held)[0], "gpu01")["count"] == 8


def test_federation_plan_has_each_pods_files_and_hosts() -> None:
    plan = build_plan(fed_spec(), fed_groups())
    assert set(plan["monitoring"]) == {"pod1", "pod2"}
    assert set(plan["configs"]) == {"pod1", "pod2"}
    assert host_pod(plan, "p2-gpu01") == "pod2" and host_pod(plan, "p1-ctl02") == "pod1"
    assert host_pod(plan, "db01") is None
    assert plan["user_views"]["pod2"]["federation"]["clusters"] == ["pod1", "pod2"]


def test_an_invalid_inventory_has_its_problems_and_no_plan() -> None:
    spec = valid_spec()
    spec["slurm_config"] = {"SchedulerParameters": "bf_continue\nNodeName=evil"}
    problems, plan = validated_plan(spec, valid_groups())
    assert problems and "holds a newline" in problems[0] and plan == {}
    assert cluster_validation(spec, valid_groups()) == {"problems": problems, "plan": {}}
    with pytest.raises(InventoryError):
        build_plan(spec, valid_groups())


def test_a_valid_inventory_validates_to_its_plan() -> None:
    result = cluster_validation(valid_spec(), valid_groups())
    assert result["problems"] == [] and result["plan"] == build_plan(valid_spec(), valid_groups())


def test_a_job_script_the_controller_lacks_is_refused_before_any_host(tmp_path: Path) -> None:
    """A sample or a script path that is not on the Ansible controller is a problem of the opening validation (not
    of the cluster role on every host); samples and existing paths pass."""
    own = tmp_path / "site-prolog"
    own.write_text("#!/bin/sh\n")
    spec = valid_spec()
    spec["job_scripts"] = {"prolog": ["job-env", str(own)], "epilog": ["gpu-clean"]}
    assert cluster_validation(spec, valid_groups())["problems"] == []
    spec["job_scripts"] = {"prolog": ["job-env", str(tmp_path / "missing")], "epilog": ["gpu-clean"]}
    result = cluster_validation(spec, valid_groups())
    assert result["plan"] == {}
    assert result["problems"] == [
        f"cluster_job_scripts.prolog: {tmp_path / 'missing'} does not exist on the Ansible controller; use a sample"
        " (dcgm-job-map, dcgm-job-unmap, gpu-clean, job-env, user-dirs) or the path of your script"
    ]
    plan = build_plan(valid_spec(), valid_groups())
    assert job_script_errors(plan, tmp_path)[0].startswith("cluster_job_scripts.prolog: user-dirs does not exist")


def test_the_sites_job_submit_lua_must_be_on_the_controller(tmp_path: Path) -> None:
    """The controllers copy the site's job_submit.lua: a path that is not a file is refused by the opening validation
    (the copy would stop the run on the controllers, after the hosts before them had changed); a relative path is
    looked for where the copy looks; the sample needs no file."""
    own = tmp_path / "job_submit.lua"
    own.write_text("function slurm_job_submit() return slurm.SUCCESS end\n")
    spec = valid_spec()
    spec["job_submit"] = {"script": str(own)}
    assert cluster_validation(spec, valid_groups())["problems"] == []
    spec["job_submit"] = {"script": str(tmp_path / "missing.lua")}
    assert cluster_validation(spec, valid_groups())["problems"] == [
        f"cluster_job_submit.script: {tmp_path / 'missing.lua'} does not exist on the Ansible controller; give the "
        "path of the site's job_submit.lua, or the sample gpu-policy"
    ]
    spec["job_submit"] = {"script": "site/job_submit.lua"}
    plan = build_plan(spec, valid_groups())
    assert len(job_submit_errors(plan, [tmp_path])) == 1
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "job_submit.lua").write_text("")
    assert job_submit_errors(plan, [tmp_path]) == []
    spec["job_submit"] = {"script": "gpu-policy"}
    assert job_submit_errors(build_plan(spec, valid_groups()), []) == []
