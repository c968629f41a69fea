"""Tier-1 validation in one task: what the validate_inventory action reads of each role, and its playbook rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ansible.template import Templar, trust_as_template
from ansible_collections.gpucluster.cluster.plugins.filter.ha import pacemaker_pairs_errors
from ansible_collections.gpucluster.cluster.plugins.module_utils.hostlist import fold
from ansible_collections.gpucluster.cluster.plugins.plugin_utils import tier1

ROOT = Path(__file__).resolve().parents[2]
VALIDATING = ["cluster", "monitoring", "galera", "slurm", "pacemaker", "login_pool", "lustre", "accounting", "nfs"]
VALIDATING += ["firewall", "gpu", "containers", "user_env"]
IPMI = {"agent": "fence_ipmilan", "ip": "10.1.0.11", "username": "admin", "password": "secret"}


def _bmcs(hosts: list[str]) -> dict[str, dict[str, str]]:
    """An IPMI fence device per host, each with its own BMC address."""
    return {host: {**IPMI, "ip": f"10.1.0.{11 + i}"} for i, host in enumerate(hosts)}


@pytest.mark.parametrize("role", VALIDATING)
def test_every_validated_role_has_its_check_and_its_validate_specs(role: str) -> None:
    """The action reads __<role>_problems (the cluster role: __cluster_spec, for the model) from the role's vars,
    and the options of its validate entry point; playbooks/validate.yml names the role."""
    files = tier1.role_files(role)
    assert ("__cluster_spec" if role == "cluster" else f"__{role}_problems") in files.variables
    assert "validate" in files.entries
    assert f"- {role}\n" in (ROOT / "playbooks" / "validate.yml").read_text()
    assert f"roles: [{role}]" in (ROOT / "roles" / role / "tasks" / "validate.yml").read_text()


def test_a_roles_scope_is_its_defaults_under_the_inventory_under_its_vars() -> None:
    files = tier1.RoleFiles(defaults={"a": 1, "b": 1}, variables={"__c": 3}, entries={})
    assert tier1.scope(files, {"b": 2, "__c": 9}) == {"a": 1, "b": 2, "__c": 3}


def test_the_argument_specs_refuse_a_wrong_type_and_name_an_unreadable_value() -> None:
    options = {"x_on": {"type": "bool"}, "x_port": {"type": "int"}, "x_secret": {"type": "str"}}
    names = {"x_on": "maybe", "x_port": 22, "x_secret": trust_as_template("{{ vault_x }}")}
    found = tier1.argument_problems("x", options, names, Templar(variables=names))
    assert len(found) == 2, found
    assert found[0].startswith("x_secret cannot be read:") and "vault_x" in found[0]
    assert "x_on" in found[1] and "bool" in found[1] and found[1].endswith("(the x role's argument specs)")
    assert tier1.argument_problems("x", options, {"x_on": True}, Templar(variables={})) == []
    # a value the specs mark no_log is masked in the message
    secret = {"x_password": {"type": "int", "no_log": True}}
    found = tier1.argument_problems("x", secret, {"x_password": "hunter2-secret"}, Templar(variables={}))
    assert len(found) == 1 and "hunter2-secret" not in found[0] and "x_password" in found[0], found


def test_a_reference_renders_as_ansible_renders_it_without_compiling() -> None:
    """render() takes a template naming one variable as that variable's value, rendered in turn; everything else
    (an expression, an untrusted string, a reference met again, an unknown name) is Ansible's to render."""
    from ansible.errors import AnsibleError

    names: dict[str, Any] = {
        "spec": {"types": trust_as_template("{{ node_types }}"), "n": trust_as_template("{{ count | int + 1 }}")},
        "node_types": {"h100": {"gpus": trust_as_template("{{ count }}")}},
        "count": trust_as_template("{{ eight }}"),
        "eight": 8,
        "loose": "{{ eight }}",
        "a": trust_as_template("{{ b }}"),
        "b": trust_as_template("{{ a }}"),
    }
    templar = Templar(variables=names)
    for name in ("spec", "node_types", "count", "loose"):
        assert tier1.render(templar, names[name]) == templar.template(names[name]), name
    assert tier1.render(templar, names["spec"]) == {"types": {"h100": {"gpus": 8}}, "n": 9}
    assert tier1.render(templar, "{{ eight }}") == "{{ eight }}"  # not trusted: not a template
    with pytest.raises(AnsibleError, match="Recursive loop"):
        tier1.render(templar, names["a"])
    with pytest.raises(AnsibleError, match="nowhere"):
        tier1.render(templar, trust_as_template("{{ nowhere }}"))


def test_one_templar_renders_over_each_scope_it_is_given() -> None:
    templar = Templar(variables={}).copy_with_new_env()
    first = tier1.over(templar, {"x": 1})
    assert first.template(trust_as_template("{{ x }}")) == 1
    assert tier1.over(templar, {"x": 2}) is first and first.template(trust_as_template("{{ x }}")) == 2


def test_only_the_roles_the_inventory_uses_are_skipped_when_unused() -> None:
    values: dict[str, Any] = {"slurm_ctld_manager": "systemd"}
    groups: dict[str, list[str]] = {"galera": []}

    def value(name: str, default: Any) -> Any:
        return values.get(name, default)

    assert [role for role in VALIDATING if not tier1.applies(role, value, groups)] == [
        "galera",
        "pacemaker",
        "login_pool",
        "lustre",
    ]
    groups["galera"] = ["db1"]
    values.update(slurm_ctld_manager="pacemaker", login_pool_vip="10.0.0.5")
    values["lustre_mounts"] = [{"path": "/lustre"}]
    assert all(tier1.applies(role, value, groups) for role in VALIDATING)


def test_the_ansible_version_is_refused_below_2_19() -> None:
    assert tier1.version_problems("2.19.14") == []
    assert tier1.version_problems("2.20.0rc1") == []
    assert "needs ansible-core >= 2.19, this is 2.18.6" in tier1.version_problems("2.18.6")[0]


def test_a_limit_that_leaves_out_needed_hosts_names_them_and_the_fix() -> None:
    found = tier1.limit_problems("remove-node.yml drains", ["controllers", "compute"], ["gpu02", "gpu01"], fold)
    assert found == [
        "remove-node.yml drains: its --limit must hold every host of controllers, compute, and it leaves out"
        " gpu[01-02]. Run it with --limit 'controllers:compute:<the hosts you meant>', or without --limit"
    ]
    assert "Run it without --limit" in tier1.limit_problems("x", ["all"], ["a"], fold)[0]
    assert tier1.limit_problems("x", ["all"], [], fold) == []


def test_a_removal_list_is_refused_where_every_compute_host_is_deployed() -> None:
    assert "remove-node.yml" in tier1.removal_problems("the site playbook", ["gpu01"])[0]
    assert tier1.removal_problems("", ["gpu01"]) == []
    assert tier1.removal_problems("the site playbook", []) == []


def _pods() -> tuple[dict[str, list[str]], dict[str, dict[str, Any]], dict[str, Any], dict[str, str]]:
    groups = {
        "controllers": ["p1-ctl01", "p1-ctl02", "p2-ctl01", "p2-ctl02"],
        "pod1": ["p1-ctl01", "p1-ctl02"],
        "pod2": ["p2-ctl01", "p2-ctl02"],
    }
    hostvars = {host: {"group_names": ["controllers", host[:2].replace("p", "pod")]} for host in groups["controllers"]}
    federation = {
        "name": "fed",
        "pods": {"pod1": {"controller_vip": "10.0.1.10"}, "pod2": {"controller_vip": "10.0.2.10"}},
    }
    addresses = {host: f"10.0.{host[1]}.1{host[-1]}" for host in groups["controllers"]}
    return groups, hostvars, federation, addresses


def test_each_pods_pair_is_checked_with_the_vip_its_hosts_see() -> None:
    """Each pod's pair on a network of its own: its VIP is checked against its own controllers' addresses."""
    groups, hostvars, federation, addresses = _pods()
    shared = {"vip": "", "cidr_netmask": 24, "fence_devices": _bmcs(groups["controllers"])}
    leaders = ["p1-ctl01", "p2-ctl01"]
    assert pacemaker_pairs_errors(leaders, groups, hostvars, federation, addresses, shared=shared) == []
    # a pacemaker_vip in pod2's group_vars must agree with the pod's controller_vip
    hostvars["p2-ctl01"]["pacemaker_vip"] = "10.0.2.99"
    assert pacemaker_pairs_errors(leaders, groups, hostvars, federation, addresses, shared=shared) == [
        "cluster_federation.pods.pod2.controller_vip 10.0.2.10 is not the pair's pacemaker_vip 10.0.2.99: "
        "slurm.conf would send every client to an address that no controller holds; set "
        "cluster_federation.pods.pod2.controller_vip to 10.0.2.99"
    ]
    # a host's own fence devices replace the role's: pod1's pair lacks its second device
    hostvars["p1-ctl01"]["pacemaker_fence_devices"] = {"p1-ctl01": IPMI}
    found = pacemaker_pairs_errors(leaders[:1], groups, hostvars, federation, addresses, shared=shared)
    assert len(found) == 1 and found[0].startswith("p1-ctl02: no fence device"), found


def test_one_pair_outside_a_federation_takes_the_roles_vip() -> None:
    groups = {"controllers": ["ctl1", "ctl2"]}
    hostvars: dict[str, dict[str, Any]] = {
        "ctl1": {"group_names": ["controllers"], "cluster_controller_vip": "10.0.0.9"}
    }
    addresses = {"ctl1": "10.0.0.11", "ctl2": "10.0.0.12"}
    shared = {"vip": "10.0.0.10", "fence_devices": _bmcs(["ctl1", "ctl2"])}
    found = pacemaker_pairs_errors(["ctl1"], groups, hostvars, None, addresses, shared=shared)
    assert len(found) == 1 and found[0].startswith("cluster_controller_vip 10.0.0.9 is not the pair's pacemaker_vip")


def test_a_vip_that_is_a_controllers_slurm_address_is_refused() -> None:
    """The sample inventories name hosts without ansible_host: the controllers' addresses slurm.conf gives
    (cluster_controller_addresses) are then the only ones known before facts, and the VIP must not be one of them."""
    groups = {"controllers": ["ctl1", "ctl2"]}
    slurm = {"ctl1": "10.0.0.11", "ctl2": "10.0.0.12"}
    hostvars: dict[str, dict[str, Any]] = {
        "ctl1": {"group_names": ["controllers"], "cluster_controller_addresses": slurm}
    }
    shared = {"vip": "10.0.0.11", "fence_devices": _bmcs(["ctl1", "ctl2"])}
    found = pacemaker_pairs_errors(["ctl1"], groups, hostvars, None, {"ctl1": "ctl1", "ctl2": "ctl2"}, shared=shared)
    assert found == [
        "pacemaker_vip 10.0.0.11 is ctl1's own address (cluster_controller_addresses): Pacemaker would raise it on "
        "the controller in charge while ctl1 holds it - two hosts answering on one address. Pick a free address of "
        "the controllers' network"
    ]
    # known from facts as well: named once, by the address check of every VIP
    found = pacemaker_pairs_errors(["ctl1"], groups, hostvars, None, slurm, shared=shared)
    assert found == ["pacemaker_vip 10.0.0.11 is ctl1's own address; pick a free address"]
    assert pacemaker_pairs_errors(["ctl1"], groups, hostvars, None, slurm, shared={**shared, "vip": "10.0.0.10"}) == []


def test_a_roles_deployment_options_are_checked_leniently() -> None:
    """The main entry point's options the validate entry point does not name; a value over facts (not gathered
    yet) is left to the role, and only the options a host's own values hold are checked."""
    files = tier1.RoleFiles(
        defaults={},
        variables={},
        entries={"validate": {"x_a": {"type": "int"}}, "main": {"x_a": {"type": "int"}, "x_b": {"type": "bool"}}},
    )
    assert files.deploy_options == {"x_b": {"type": "bool"}}
    options = {"x_b": {"type": "bool"}, "x_c": {"type": "int", "required": True}}
    names = {"x_b": trust_as_template("{{ ansible_facts.cpu }}")}
    assert tier1.argument_problems("x", options, names, Templar(variables=names), lenient=True) == []
    assert len(tier1.argument_problems("x", options, {"x_b": "maybe"}, Templar(variables={}), lenient=True)) == 1


def test_each_group_is_seen_through_its_first_host_each_host_once() -> None:
    groups = {
        "all": ["a", "b", "c"],
        "ungrouped": ["c"],
        "compute": ["b", "a"],
        "compute_h100": ["b"],
        "controllers": ["a"],
        "empty": [],
    }
    assert tier1.group_representatives(groups) == [("a", "controllers"), ("b", "compute")]


def test_validate_yml_checks_every_role_that_has_settings() -> None:
    """Every role whose main entry point has options is checked by playbooks/validate.yml before any host is
    touched (a role left out would refuse a wrong value only when it starts, after the others changed the hosts)."""
    listed = (ROOT / "playbooks" / "validate.yml").read_text()
    roles = sorted(path.name for path in (ROOT / "roles").iterdir() if (path / "meta" / "argument_specs.yml").exists())
    with_settings = [role for role in roles if tier1.role_files(role).entries.get("main")]
    assert [role for role in with_settings if f"          - {role}\n" not in listed] == []
    assert len(with_settings) >= 17


def test_a_run_is_known_by_its_main_process_and_when_it_started() -> None:
    """The token is this process's parent and its start time: the same for every worker of one ansible-playbook,
    another for a later run (a parent of the same pid starts later)."""
    token = tier1.run_token()
    parent, started = token.split("-")
    assert int(parent) > 0 and int(started) > 0
    assert tier1.run_token() == token


def test_an_earlier_validation_of_the_run_stands_for_one_that_checks_no_more() -> None:
    deploy = tier1.validation_record("7-100", ["cluster", "slurm"], [], True, True)
    upgrade = tier1.validation_record("7-100", ["cluster", "slurm", "galera"], ["all"], True, True)
    assert tier1.covers(upgrade, deploy)
    assert tier1.covers(deploy, deploy)
    # not another run's, not an unknown run, not one that checked less
    assert not tier1.covers({**upgrade, "run": "7-99"}, deploy)
    assert not tier1.covers(tier1.validation_record("", ["cluster", "slurm"], [], True, True), {**deploy, "run": ""})
    assert not tier1.covers(deploy, upgrade)
    assert not tier1.covers({**upgrade, "deploys_all": False}, deploy)
    assert not tier1.covers({**upgrade, "limit_holds": ["controllers"]}, {**deploy, "limit_holds": ["dbd"]})
    assert not tier1.covers(upgrade, {**deploy, "skip_unused": False})
    assert not tier1.covers(None, deploy)


def test_a_fence_device_at_the_vip_or_at_a_controllers_own_address_is_refused() -> None:
    """A BMC address copied from the hosts' table or the VIP: the agent would log in to the system it fences."""
    groups = {"controllers": ["ctl1", "ctl2"]}
    hostvars: dict[str, dict[str, Any]] = {"ctl1": {"group_names": ["controllers"]}}
    addresses = {"ctl1": "10.0.0.11", "ctl2": "10.0.0.12"}
    devices = _bmcs(["ctl1", "ctl2"])
    shared = {"vip": "10.0.0.10", "fence_devices": devices}
    assert pacemaker_pairs_errors(["ctl1"], groups, hostvars, None, addresses, shared=shared) == []
    devices["ctl1"] = {**devices["ctl1"], "ip": "10.0.0.10"}
    devices["ctl2"] = {**devices["ctl2"], "ip": "10.0.0.11"}
    found = pacemaker_pairs_errors(["ctl1"], groups, hostvars, None, addresses, shared=shared)
    assert found == [
        "ctl1: fence device ip 10.0.0.10 is pacemaker_vip, the address the controller in charge raises, not a BMC: "
        "fencing ctl1 would log in to the controller itself; give ctl1's BMC address",
        "ctl2: fence device ip 10.0.0.11 is the address of ctl1 (the system, not its BMC): the agent gets no answer "
        "there once the system hangs, so fencing fails; give ctl2's BMC address",
    ]


def test_problems_read_as_an_admin_reads_them() -> None:
    """Class names said as kinds of value, one message from several roles' specs given once, and a role check that
    could not run on values the specs refused said as such."""
    tagged = "<class 'ansible.module_utils._internal._datatag._AnsibleTaggedList'>"
    wrong = f"argument 'cluster_node_types' is of type list and we were unable to convert to dict: {tagged} cannot be"
    found = tier1.tidy_problems(
        [
            f"{wrong} converted to a dict (the cluster role's argument specs)",
            f"{wrong} converted to a dict (the accounting role's argument specs)",
            "the slurm role's settings could not be checked: Error rendering template: can only concatenate list",
        ]
    )
    assert found == [
        "argument 'cluster_node_types' is of type list and we were unable to convert to dict: a list cannot be "
        "converted to a dict (the cluster and accounting roles' argument specs)",
        "the slurm role's settings were not checked: they read values refused above; fix those first",
    ]
    # without a refusal by the specs, the template's own error is the problem to show
    alone = "the slurm role's settings could not be checked: 'x' is undefined"
    assert tier1.tidy_problems([alone]) == [alone]


def test_a_list_element_of_the_wrong_type_is_named_once_with_its_option() -> None:
    options = {"x_exports": {"type": "list", "elements": "dict"}}
    found = tier1.argument_problems("x", options, {"x_exports": "/home"}, Templar(variables={}))
    assert len(found) == 1 and "option 'x_exports'" in found[0], found


def test_a_required_value_left_unset_is_named_with_what_to_do() -> None:
    found = tier1.tidy_problems(
        ["missing required arguments: accounting_db_password (the accounting role's argument specs)"]
    )
    assert found == [
        "accounting_db_password not set: required - give it in the inventory (a secret: in Ansible Vault) (the "
        "accounting role's argument specs)"
    ]


def test_a_patch_release_is_answered_with_its_series() -> None:
    given = "value of cluster_slurm_release must be one of: 22.05, 24.11, got: 24.11.6"
    found = tier1.tidy_problems([f"{given} (the cluster role's argument specs)"])
    assert found == [
        "value of cluster_slurm_release must be one of: 22.05, 24.11, got: 24.11.6 - give the release series, 24.11 "
        "(24.11.6 is one of its releases) (the cluster role's argument specs)"
    ]


def test_a_required_option_of_an_entry_is_named_with_its_list_and_no_vault_hint_unless_secret() -> None:
    found = tier1.tidy_problems(
        [
            "missing required arguments: options found in nfs_exports (the nfs role's argument specs)",
            "missing required arguments: cluster_name (the cluster role's argument specs)",
        ]
    )
    assert found == [
        "nfs_exports: options not given - each entry there needs it (the nfs role's argument specs)",
        "cluster_name not set: required - give it in the inventory (the cluster role's argument specs)",
    ]
