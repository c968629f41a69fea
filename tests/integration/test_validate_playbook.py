"""playbooks/validate.yml: every check an inventory gets before any host is touched (the cluster model,
then the Galera, Pacemaker, login pool and Lustre settings). The sample production inventory passes; a
broken copy is refused with the variable named."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
import yaml

from .conftest import ROOT

# The Vault file a site keeps beside the production inventory (never committed): stand-in values.
VAULT = {
    "vault_bmc_password_ctl01": "bmc-secret-1",
    "vault_bmc_password_ctl02": "bmc-secret-2",
    "vault_galera_sst_password": "sst-secret-0123456789",
    "vault_accounting_db_password": "db-secret-0123456789",
    "vault_login_vrrp_password": "vrrp1234",
    "vault_bmc_password": "bmc-secret-0",
    # the pilot sample leaves these to the site's vault (README), which validate.yml requires
    "accounting_db_password": "db-secret-0123456789",
    "monitoring_mysqld_exporter_db_password": "exporter-secret-0123",
    "monitoring_grafana_admin_password": "grafana-secret-0123",
}


def playbook(inventory: Path, name: str, *args: str, vault: bool = True) -> subprocess.CompletedProcess[str]:
    """ansible-playbook on the Ansible controller with the stand-in Vault values (the sample inventories'
    hosts do not exist: a task that contacted one would report it unreachable); ``vault=False``: the inventory's
    own values only."""
    env = {
        **os.environ,
        "ANSIBLE_CONFIG": str(ROOT / "ansible.cfg"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_CACHE_PLUGIN": "memory",
    }
    command = [str(ROOT / ".venv" / "bin" / "ansible-playbook"), "-i", str(inventory), f"playbooks/{name}", *args]
    for key, value in VAULT.items() if vault else ():
        command += ["-e", f"{key}={value}"]
    # no terminal to type the cluster's name on (playbooks/confirm.yml: tests/integration/test_confirmation.py)
    command += ["-e", "skip_confirmation=true"]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)


def validate(inventory: Path) -> subprocess.CompletedProcess[str]:
    return playbook(inventory, "validate.yml")


def broken(tmp_path: Path, name: str, value: object, site: str = "production", group: str = "all") -> Path:
    inventory = tmp_path / site
    shutil.copytree(ROOT / "inventories" / site, inventory)
    (inventory / "group_vars" / group / "zz-broken.yml").write_text(yaml.safe_dump({name: value}))
    return inventory


SAMPLES = sorted(path.name for path in (ROOT / "inventories").iterdir() if (path / "hosts.yml").exists())


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_sample_inventory_passes_every_check(sample: str) -> None:
    """What README and docs point users to (inventories/*) is a cluster the validation takes, the scale sample
    too: a check added later that refuses one of them is caught here, not by a user."""
    result = validate(ROOT / "inventories" / sample)
    assert result.returncode == 0, result.stdout[-3000:]


@pytest.mark.parametrize("shape", ["cluster", "federation"])
def test_the_benches_generated_inventories_pass_every_check(tmp_path: Path, shape: str) -> None:
    """bench/plan.py, bench/playbooks.py and bench/generation.py time the playbooks on these, as written (their own
    stand-in secrets, no -e): a refused one times an error message."""
    from bench.gen_inventory import write_federation, write_inventory

    made = write_inventory(tmp_path, 64) if shape == "cluster" else write_federation(tmp_path, 3, 16)
    result = playbook(made, "validate.yml", vault=False)
    assert result.returncode == 0, result.stdout[-3000:]


def test_sample_production_inventory_passes_every_check() -> None:
    result = validate(ROOT / "inventories" / "production")
    assert result.returncode == 0, result.stdout[-3000:]
    assert "failed=0" in result.stdout


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("login_pool_vip", "10.10.0.10", "login_pool_vip 10.10.0.10 is also pacemaker_vip"),
        ("login_pool_virtual_router_id", 300, "login_pool_virtual_router_id 300 is not a VRRP router id"),
        (
            "lustre_mounts",
            [{"fsname": "scratch", "mgs_nids": ["10.20.0.1@o2ib3"], "path": "/lustre/scratch"}],
            "lustre_mounts[0].mgs_nids: '10.20.0.1@o2ib3' is on LNet network o2ib3",
        ),
        ("pacemaker_fence_devices", {}, "prod-ctl01: no fence device in pacemaker_fence_devices"),
        ("login_pool_vrrp_password", "", "login_pool_vrrp_password is empty: without VRRP authentication"),
        (
            "accounting_accounts",
            {"vision": {"parent": "research", "grp_tres": {"gpu": 2}}},
            "accounting_accounts.vision: parent 'research' is not an account",
        ),
        (
            "accounting_users",
            {"carol": {"account": "vision", "partitions": ["cpu"]}},
            "accounting_users.carol: account 'vision' is not in accounting_accounts",
        ),
        (
            "slurm_reservations",
            [{"name": "maint", "nodes": "prod-gpu[001-002],login9", "duration": 60, "users": ["root"]}],
            "slurm_reservations[0] (maint): nodes login9 are not compute hosts of the inventory",
        ),
        ("firewall_admin_networks", ["10.0.0.0/33"], "firewall_admin_networks: '10.0.0.0/33' is not an address"),
        (
            "firewall_extra_openings",
            [{"name": "lnet", "hosts": "gpus", "ports": "988", "sources": ["10.9.0.0/24"]}],
            "firewall_extra_openings[0] (lnet): hosts 'gpus' is not a group of the inventory",
        ),
        (
            "gpu_fabric_interfaces",
            [{"name": "ib0", "network": "10.20.0.0/16", "mode": "datagram", "mtu": 65520}, {"name": "ib1"}],
            "gpu_fabric_interfaces[0] (ib0): an IPoIB interface in datagram mode carries at most MTU 4092",
        ),
        (
            "gpu_fabric_addresses",
            {"ib0": "10.20.1.23/16"},
            "gpu_fabric_addresses names ib0, which is not in gpu_fabric_interfaces",
        ),
        (
            "slurm_pam_adopt_exempt_groups",
            ["hpc admins"],
            "slurm_pam_adopt_exempt_groups: 'hpc admins' is not a user or group name",
        ),
        (
            "containers_enroot_config",
            {"ENROOT_DATA_PATH": "/scratch/enroot # per user"},
            "containers_enroot_config.ENROOT_DATA_PATH: '/scratch/enroot # per user' holds '#'",
        ),
        (
            "monitoring_exporter_address",
            "0.0.0.0:9100",
            "prod-ctl01: monitoring_exporter_address '0.0.0.0:9100' is neither an IP address nor a host name",
        ),
        (
            "user_env_pip_index_url",
            "pypi.example.org/simple",
            "user_env_pip_index_url: 'pypi.example.org/simple' is not the http:// or https:// URL of a package index",
        ),
        (
            "gpu_dcgm_exporter_address",
            "any address",
            "prod-gpu001: gpu_dcgm_exporter_address 'any address' is neither an IP address nor a host name",
        ),
    ],
)
def test_broken_setting_is_refused_by_name(tmp_path: Path, name: str, value: object, message: str) -> None:
    result = validate(broken(tmp_path, name, value))
    assert result.returncode != 0
    assert message in " ".join(result.stdout.split())


def test_sample_federation_inventory_passes_and_each_pods_vip_is_checked(tmp_path: Path) -> None:
    """Each pod's pair is checked with its own settings: pod2's pacemaker_vip moved away from the controller_vip
    its slurm.conf names is refused, naming the pod."""
    result = validate(ROOT / "inventories" / "federation")
    assert result.returncode == 0, result.stdout[-3000:]
    result = validate(broken(tmp_path, "pacemaker_vip", "10.10.2.11", "federation", "pod2"))
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "cluster_federation.pods.pod2.controller_vip 10.10.2.10 is not the pair's pacemaker_vip 10.10.2.11" in out
    assert "pod1.controller_vip" not in out


def test_a_pods_pair_without_a_vip_is_refused_naming_the_pods_controller_vip(tmp_path: Path) -> None:
    """A pod's pair takes its VIP from the pod's controller_vip (written once): a pod with neither is refused,
    naming the variable to set."""
    inventory = tmp_path / "federation"
    shutil.copytree(ROOT / "inventories" / "federation", inventory)
    settings = inventory / "group_vars" / "all" / "cluster.yml"
    written = yaml.safe_load(settings.read_text())
    del written["cluster_federation"]["pods"]["pod2"]["controller_vip"]
    settings.write_text(yaml.safe_dump(written))
    result = validate(inventory)
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "cluster_federation.pods.pod2.controller_vip '' is not an IP address" in out, out[-3000:]
    assert "pod1.controller_vip" not in out


def test_phase_upgrade_refuses_an_inventory_that_is_not_production_before_any_host(tmp_path: Path) -> None:
    """upgrade-production.yml with the pilot's own inventory (the production one not written yet): refused by
    its first gate, which contacts no host (the sample hosts do not exist)."""
    result = playbook(ROOT / "inventories" / "pilot", "upgrade-production.yml")
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "the inventory must describe production: a controller pair (found 1 controllers)" in out, out[-3000:]
    assert "unreachable=1" not in out and "UNREACHABLE" not in out


def test_pods_run_by_different_managers_are_refused(tmp_path: Path) -> None:
    """The slurm role's handlers act on each pod with one manager: pod2 under systemd beside pod1's Pacemaker
    pair is refused, naming the controllers."""
    result = validate(broken(tmp_path, "slurm_ctld_manager", "systemd", "federation", "pod2"))
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "slurm_ctld_manager differs between the controllers (" in out, out[-3000:]
    assert "fed-p1-ctl01: pacemaker" in out and "fed-p2-ctl01: systemd" in out, out[-3000:]


def test_federation_move_refuses_an_inventory_without_a_federation_before_any_host() -> None:
    """upgrade-federation.yml with the production inventory (the federation not written yet): refused by its
    first gate, which contacts no host (the sample hosts do not exist)."""
    result = playbook(ROOT / "inventories" / "production", "upgrade-federation.yml")
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "the inventory must describe the federation: cluster_federation with its pods" in out, out[-3000:]
    assert "unreachable=1" not in out and "UNREACHABLE" not in out


@pytest.mark.parametrize(
    ("name", "left_out", "advice"),
    [
        ("upgrade-slurm.yml", "pilot-ctl01,pilot-dbd01", "--limit 'dbd:controllers:<the hosts you meant>'"),
        # (with the host firewall on, as in the sample: every host's table gains the new nodes' addresses)
        ("scale.yml", "pilot-ctl01,pilot-dbd01,pilot-gpu[02-16],pilot-login01,pilot-nfs01", "without --limit"),
        ("remove-node.yml", "pilot-ctl01,pilot-gpu16", "--limit 'controllers:pilot-gpu16:<the hosts you meant>'"),
        ("upgrade-production.yml", "pilot-ctl01,pilot-dbd01,pilot-gpu[02-16]", "without --limit"),
    ],
)
def test_lifecycle_playbook_limited_past_the_hosts_it_needs_is_refused_before_any_host(
    name: str, left_out: str, advice: str
) -> None:
    """A lifecycle playbook acts on groups in an order (servers before slurmd, a node drained before slurm.conf
    leaves it out): a --limit leaving out hosts it needs is refused by the validation, naming them."""
    result = playbook(
        ROOT / "inventories" / "pilot", name, "--limit", "pilot-gpu01", "-e", "cluster_removed_nodes=pilot-gpu16"
    )
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "its --limit must hold every host of" in out and f"it leaves out {left_out}" in out, out[-3000:]
    assert advice in out, out[-3000:]
    assert "unreachable=1" not in out and "UNREACHABLE" not in out


def test_a_run_limited_to_one_host_is_validated_all_the_same(tmp_path: Path) -> None:
    """--limit leaves localhost out of the run: the validation plays still run (once), before any host."""
    inventory = broken(tmp_path, "cluster_partitions", [{"name": "gpu", "node_types": ["a100"]}], "pilot")
    result = playbook(inventory, "site.yml", "--limit", "pilot-gpu01")
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "node type 'a100' is not declared in cluster_node_types" in out, out[-3000:]
    assert "unreachable=1" not in out and "UNREACHABLE" not in out


def test_scale_without_the_firewall_needs_only_the_controllers_in_its_limit() -> None:
    result = playbook(
        ROOT / "inventories" / "pilot", "scale.yml", "--limit", "pilot-gpu01", "-e", "firewall_enabled=false"
    )
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "it leaves out pilot-ctl01. Run it with --limit 'controllers:<the hosts you meant>'" in out, out[-3000:]


def test_a_boolean_over_facts_does_not_stop_the_validation_of_a_limited_run(tmp_path: Path) -> None:
    """A role's boolean written as a template over facts (`gpu_nccl: "{{ ansible_facts[...] != 'bookworm' }}"` in
    group_vars/compute) cannot be resolved before facts are gathered: the validation, run in the name of the one
    limited compute host, leaves it to the role and still reports the inventory's real problems."""
    inventory = broken(tmp_path, "cluster_partitions", [{"name": "gpu", "node_types": ["a100"]}], "pilot")
    compute = inventory / "group_vars" / "compute.yml"
    facts = "gpu_nccl: \"{{ ansible_facts['distribution_release'] != 'bookworm' }}\"\n"
    compute.write_text(compute.read_text(encoding="utf-8") + facts, encoding="utf-8")
    result = playbook(inventory, "site.yml", "--limit", "pilot-gpu01")
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "node type 'a100' is not declared in cluster_node_types" in out, out[-3000:]
    assert "distribution_release" not in out, out[-3000:]
    assert "unreachable=1" not in out and "UNREACHABLE" not in out


@pytest.mark.parametrize(
    ("inventory", "name", "named"),
    [
        ("pilot", "site.yml", "the deploy playbook (deploy.yml)"),
        # its former name, kept for a release: it says so, then runs the deploy playbook
        ("pilot", "pilot.yml", "the deploy playbook (deploy.yml)"),
        ("pilot", "scale.yml", "scale.yml"),
        # the phase upgrades run the site playbook after their gates, backups and (production) the pilot's slurmdbd
        # stopped: refused in their own validation, before all of it
        ("production", "upgrade-production.yml", "upgrade-production.yml"),
        ("federation", "upgrade-federation.yml", "upgrade-federation.yml"),
    ],
)
def test_a_removal_list_is_refused_where_every_compute_host_is_deployed(inventory: str, name: str, named: str) -> None:
    """cluster_removed_nodes belongs to remove-node.yml: the playbooks that deploy every compute host refuse it
    in their validation, before any host."""
    result = playbook(ROOT / "inventories" / inventory, name, "-e", "cluster_removed_nodes=pilot-gpu16")
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert f"cluster_removed_nodes is set: {named} deploys every compute host of the inventory" in out, out[-3000:]
    assert "unreachable=1" not in out and "UNREACHABLE" not in out
    # refused by the playbook's first validation (a phase upgrade's own, before its gates)
    assert out.count("TASK [Check the Ansible version") == 1 and "Gates of the phase upgrade" not in out, out[-3000:]
    renamed = "DEPRECATED: playbooks/pilot.yml is now playbooks/deploy.yml"
    assert (renamed in out) == (name == "pilot.yml"), out[-3000:]


def test_a_run_validates_once(tmp_path: Path) -> None:
    """A phase upgrade imports the deploy playbook after its own validation: the deploy playbook's validation, which
    checks no more, is not done again; one that checks more (here the removal list) is."""
    runs = tmp_path / "validate-twice.yml"
    validate = ROOT / "playbooks" / "validate.yml"
    runs.write_text(
        f"- import_playbook: {validate}\n  vars: {{validate_limit_holds: [all], validate_limit_why: the test}}\n"
        f"- import_playbook: {validate}\n"
        f"- import_playbook: {validate}\n  vars: {{validate_deploys_all: the third}}\n",
        encoding="utf-8",
    )
    result = playbook(ROOT / "inventories" / "pilot", os.path.relpath(runs, ROOT / "playbooks"), "-v")
    out = " ".join(result.stdout.split())
    assert result.returncode == 0, out[-3000:]
    assert out.count("validated earlier in this run, with these checks or more") == 1, out[-3000:]
    assert "ok=2 changed=0 unreachable=0 failed=0 skipped=1" in out, out[-3000:]


def hosts_step_on_this_machine(inventory: Path) -> subprocess.CompletedProcess[str]:
    """site.yml's /etc/hosts step in check mode, limited to pilot-gpu01 played by this machine (a local
    connection): the other hosts' addresses come from the inventory alone (no fact cache), nothing is written."""
    return playbook(
        inventory,
        "site.yml",
        "--limit",
        "pilot-gpu01",
        "--tags",
        "hosts",
        "--check",
        "-e",
        "ansible_connection=local",
        "-e",
        "ansible_python_interpreter=/usr/bin/python3",
    )


def test_a_limited_run_without_the_other_hosts_addresses_stops_before_etc_hosts() -> None:
    """site.yml --limit gathers facts of its own hosts only: /etc/hosts is not written without the others'
    addresses (no fact cache here, no ansible_host in the sample), the hosts named. The one limited host is
    this machine (a local connection, --check: nothing is written)."""
    result = hosts_step_on_this_machine(ROOT / "inventories" / "pilot")
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "no address for pilot-ctl01,pilot-dbd01,pilot-gpu[02-16],pilot-login01,pilot-nfs01: no cached facts" in out
    assert "changed=0" in out and "Write /etc/hosts entries" not in out, out[-3000:]


def test_two_compute_names_on_one_address_stop_before_etc_hosts(tmp_path: Path) -> None:
    """An ansible_host copied from the line above: pilot-gpu03 reaches pilot-gpu02's machine. The common role names
    both before /etc/hosts is written (the limited host is this machine, --check: nothing is written)."""
    inventory = tmp_path / "pilot"
    shutil.copytree(ROOT / "inventories" / "pilot", inventory)
    names = ["pilot-ctl01", "pilot-dbd01", "pilot-login01", "pilot-nfs01", *(f"pilot-gpu{i:02d}" for i in range(1, 17))]
    (inventory / "host_vars").mkdir(exist_ok=True)
    for index, name in enumerate(names, start=10):
        address = "192.0.2.250" if name in ("pilot-gpu02", "pilot-gpu03") else f"192.0.2.{index}"
        (inventory / "host_vars" / f"{name}.yml").write_text(f"ansible_host: {address}\n")
    result = hosts_step_on_this_machine(inventory)
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "pilot-gpu02, pilot-gpu03 are one machine (address 192.0.2.250, from its facts or ansible_host)" in out, out[
        -3000:
    ]
    assert "changed=0" in out and "Write /etc/hosts entries" not in out, out[-3000:]


def test_a_compute_name_that_is_not_the_hosts_own_stops_before_any_change() -> None:
    """site.yml limited to pilot-gpu01, played by this machine (a local connection, --check), whose hostname is not
    pilot-gpu01: slurmd there would not find its NodeName. The common role's first task names the host and its own
    name before any other task of the role."""
    own = socket.gethostname()
    assert own.split(".")[0] != "pilot-gpu01"
    result = playbook(
        ROOT / "inventories" / "pilot",
        "site.yml",
        "--limit",
        "pilot-gpu01",
        "--tags",
        "common",
        "--check",
        "-e",
        "ansible_connection=local",
        "-e",
        "ansible_python_interpreter=/usr/bin/python3",
    )
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert (
        f"compute nodes whose inventory name is not the host's own name: pilot-gpu01 (hostname -s: {own.split('.')[0]}"
        in out
    ), out[-3000:]
    assert "changed=0" in out and "Read the installed packages" not in out, out[-3000:]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cluster_schedulling:\n  preempt: {type: qos}\n", "did you mean 'cluster_scheduling'?"),
        ("cluster_name: a\ncluster_name: b\n", "Found duplicate mapping key 'cluster_name'"),
        ('cluster_slurm_config:\n  MailProg: "/usr/bin/mail\\nSlurmUser=root"\n', "holds a newline"),
        (
            "cluster_partitions:\n  - {name: gpu, node_types: [h100], max_time: 48:00:00}\n",
            "zz-mistake.yml:2: cluster_partitions[0].max_time: 48:00:00 is read by YAML as the base-60 number 172800",
        ),
    ],
    ids=["misspelt variable", "duplicate key", "newline in a value", "base-60 time"],
)
def test_operators_mistakes_in_a_group_vars_file_stop_the_run(tmp_path: Path, text: str, message: str) -> None:
    inventory = tmp_path / "pilot"
    shutil.copytree(ROOT / "inventories" / "pilot", inventory)
    (inventory / "group_vars" / "all" / "zz-mistake.yml").write_text(text)
    result = validate(inventory)
    assert result.returncode != 0
    assert message in result.stdout + result.stderr, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Traceback" not in result.stdout + result.stderr


def test_an_inventory_ansible_cannot_parse_stops_the_run(tmp_path: Path) -> None:
    inventory = tmp_path / "hosts.yml"
    inventory.write_text("all:\n  children:\n    compute:\n   hosts: [gpu01]\n")
    result = validate(inventory)
    assert result.returncode != 0
    assert "No inventory was parsed" in result.stderr
    assert "PLAY [" not in result.stdout


def test_a_cluster_variable_in_a_groups_file_is_refused(tmp_path: Path) -> None:
    inventory = tmp_path / "pilot"
    shutil.copytree(ROOT / "inventories" / "pilot", inventory)
    with (inventory / "group_vars" / "compute.yml").open("a") as handle:
        handle.write("cluster_scheduling: {preempt: {type: qos}}\n")
    result = validate(inventory)
    assert result.returncode != 0
    assert "cluster_scheduling is set in group_vars/compute, but the model reads" in result.stdout, result.stdout[
        -3000:
    ]


def test_galera_recovery_limited_past_a_galera_node_is_refused_before_any_host() -> None:
    result = playbook(ROOT / "inventories" / "production", "galera-recover.yml", "--limit", "prod-dbd01,prod-dbd02")
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "galera-recover.yml reads the position of every Galera node" in out, out[-3000:]
    assert "it leaves out prod-dbd03" in out, out[-3000:]
    assert "UNREACHABLE" not in out


def test_galera_recovery_of_an_inventory_without_galera_is_refused_before_any_host() -> None:
    """The pilot's database is the one MariaDB on its dbd host: galera-recover.yml says so instead of a template
    error in the middle of the galera role."""
    result = playbook(ROOT / "inventories" / "pilot", "galera-recover.yml")
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert "this inventory has none (the galera group is empty)" in out and "Nothing was changed" in out, out[-3000:]
    assert "UNREACHABLE" not in out and "is undefined" not in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "cluster_removed_nodes is empty: name the compute nodes to remove"),
        (
            ["-e", "cluster_removed_nodes=pilot-gpu[07-08"],
            "cluster_removed_nodes: cannot parse hostlist",
        ),
    ],
    ids=["no node", "not a hostlist"],
)
def test_a_removal_that_names_no_node_it_can_read_is_refused_before_any_host(extra: list[str], message: str) -> None:
    """remove-node.yml without nodes, or with an expression that cannot be read: refused by name, before the
    confirmation and before the running cluster is asked anything (a hostlist error was a chain of Ansible's
    template errors)."""
    result = playbook(ROOT / "inventories" / "pilot", "remove-node.yml", *extra)
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert message in out, out[-3000:]
    assert "UNREACHABLE" not in out and "Finalization of task args" not in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["-e", "galera_bootstrap_from=prod-dbd02"],
            "Confirm by typing the host again: -e galera_bootstrap_confirm=prod-dbd02",
        ),
        (
            ["-e", "galera_bootstrap_from=db09", "-e", "galera_bootstrap_confirm=db09"],
            "it is not in group galera (prod-dbd01, prod-dbd02, prod-dbd03); name one of its hosts",
        ),
    ],
    ids=["unconfirmed", "not a galera node"],
)
def test_an_operators_bootstrap_choice_needs_its_confirmation(extra: list[str], message: str) -> None:
    result = playbook(ROOT / "inventories" / "production", "galera-recover.yml", *extra)
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert message in out, out[-3000:]
    assert "UNREACHABLE" not in out


def test_every_boolean_given_as_the_string_false_passes_and_a_non_boolean_is_refused() -> None:
    """`-e flag=false` arrives as the string "false": validation reads it as false for every boolean variable of
    every role (the roles use `| bool`, statically tested in tests/unit/test_booleans.py); a value that is no
    boolean word is refused, naming the variable, instead of being read as false without a word."""
    from ansible_collections.gpucluster.cluster.plugins.plugin_utils.variables import boolean_variables

    falses = [arg for name in sorted(boolean_variables()) for arg in ("-e", f"{name}=false")]
    result = playbook(ROOT / "inventories" / "production", "validate.yml", *falses)
    assert result.returncode == 0, result.stdout[-3000:]
    refused = playbook(ROOT / "inventories" / "production", "validate.yml", "-e", "accounting_backup=maybe")
    assert refused.returncode != 0
    message = " ".join(refused.stdout.split())
    assert "variable 'accounting_backup' is 'maybe': it is a boolean; set it to true or false" in message, message[
        -2000:
    ]


def test_every_problem_is_listed_at_once(tmp_path: Path) -> None:
    """One run names the problems of the cluster model, the monitoring, Galera, Pacemaker and login pool settings
    and the --limit together (each check adds to one list), instead of stopping at the first check that fails.
    (A value of the wrong type or outside an entry point's choices is refused by its argument specs at once.)"""
    inventory = broken(tmp_path, "cluster_partitions", [{"name": "gpu", "node_types": ["a100"]}])
    broken_more = {
        "login_pool_virtual_router_id": 300,
        "pacemaker_fence_devices": {},
        "galera_bootstrap_from": "prod-db09",
        "monitoring_alertmanager_route": {"receiver": "nobody"},
    }
    (inventory / "group_vars" / "all" / "zz-more.yml").write_text(yaml.safe_dump(broken_more))
    result = playbook(inventory, "upgrade-slurm.yml", "--limit", "prod-gpu001")
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    expected = [
        "node type 'a100' is not declared in cluster_node_types",
        "login_pool_virtual_router_id 300 is not a VRRP router id",
        "prod-ctl01: no fence device in pacemaker_fence_devices",
        "galera_bootstrap_from is prod-db09: it is not in group galera",
        "nobody",
        "its --limit must hold every host of",
    ]
    assert [text for text in expected if text not in out] == [], out[-5000:]
    # one report: the run stopped once, at the end of the validation
    assert out.count("fatal: [") == 1 and "The inventory has 9 problems; nothing was changed" in out, out[-5000:]
    assert "unreachable=1" not in out and "UNREACHABLE" not in out


def test_a_groups_value_the_deployments_argument_specs_refuse_is_named_before_any_host_is_touched(
    tmp_path: Path,
) -> None:
    """A value of a group's group_vars that a role's main entry point refuses (only its deployment reads it) stops
    the validation, named with a host of the group - not the run, halfway, when the role starts on that group after
    the roles before it changed the hosts. A value group_vars/all gives every host is named once."""
    inventory = tmp_path / "pilot"
    shutil.copytree(ROOT / "inventories" / "pilot", inventory)
    compute = inventory / "group_vars" / "compute.yml"
    compute.write_text(compute.read_text().replace("gpu_rdma_active_ports: 8 ", "gpu_rdma_active_ports: eight "))
    (inventory / "group_vars" / "all" / "zz-broken.yml").write_text(yaml.safe_dump({"accounting_backup_keep": "many"}))
    result = validate(inventory)
    out = " ".join(result.stdout.split()).replace("''", "'")
    assert result.returncode != 0
    assert "The inventory has 2 problems; nothing was changed" in out, out[-3000:]
    assert (
        "pilot-gpu01 (group compute): argument 'gpu_rdma_active_ports' is of type str and we were unable to convert"
        " to int" in out
    ), out[-3000:]
    assert out.count("argument 'accounting_backup_keep' is of type str") == 1, out[-3000:]


def test_a_groups_value_the_roles_own_check_refuses_is_named_with_a_host_of_the_group(tmp_path: Path) -> None:
    """The roles' own checks (__<role>_problems) judge a group's values too, not only what group_vars/all gives the
    validation host: the sample sets gpu_driver_version and the NCCL lists in group_vars/compute.yml, where a
    driver branch alone or a space in NCCL_IB_HCA would pass unseen and stop (or slow) every GPU node later."""
    inventory = tmp_path / "pilot"
    shutil.copytree(ROOT / "inventories" / "pilot", inventory)
    compute = inventory / "group_vars" / "compute.yml"
    text = compute.read_text().replace('gpu_driver_version: "550.*"', 'gpu_driver_version: "550"')
    compute.write_text(text.replace('"=mlx5_0,mlx5_1,', '"=mlx5_0 mlx5_1,'))
    result = validate(inventory)
    out = " ".join(result.stdout.split()).replace("''", "'")
    assert result.returncode != 0
    assert "The inventory has 2 problems; nothing was changed" in out, out[-3000:]
    assert "pilot-gpu01 (group compute): gpu_driver_version: '550' is a driver branch" in out, out[-3000:]
    assert "pilot-gpu01 (group compute): gpu_nccl_ib_hca: '=mlx5_0 mlx5_1," in out, out[-3000:]
