"""What only the inventory's files show: base-60 and octal numbers, reversed host ranges, model variables
outside group_vars/all - each named by file and line."""

from __future__ import annotations

from pathlib import Path

from ansible_collections.gpucluster.cluster.plugins.plugin_utils.inventory_text import inventory_text_errors

PREFIXES = ("cluster", "slurm", "galera")


def site(tmp_path: Path, hosts: str, **group_vars: str) -> Path:
    (tmp_path / "hosts.yml").write_text(hosts)
    for name, text in group_vars.items():
        path = tmp_path / "group_vars" / f"{name}.yml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


HOSTS = "all:\n  children:\n    compute:\n      hosts:\n        gpu[01:16]:\n"


def test_a_clean_inventory_has_nothing_to_say(tmp_path: Path) -> None:
    inventory = site(tmp_path, HOSTS, all="cluster_partitions:\n  - {name: gpu, max_time: '48:00:00'}\n")
    assert inventory_text_errors([str(inventory)], PREFIXES) == []


def test_base60_octal_and_trailing_zero_are_named_by_file_and_line(tmp_path: Path) -> None:
    text = (
        "cluster_slurm_release: 23.10\n"
        "cluster_partitions:\n"
        "  - name: gpu\n"
        "    max_time: 48:00:00\n"
        "cluster_node_types:\n"
        "  h100: {weight: 010}\n"
        "other_tool_setting: 1:30\n"
    )
    inventory = site(tmp_path, HOSTS, all=text)
    errors = inventory_text_errors([str(inventory)], PREFIXES)
    assert errors == [
        f"{inventory}/group_vars/all.yml:1: cluster_slurm_release: 23.10 is read by YAML as the number 23.1, its "
        "trailing zero dropped; quote it: '23.10'",
        f"{inventory}/group_vars/all.yml:4: cluster_partitions[0].max_time: 48:00:00 is read by YAML as the base-60 "
        "number 172800; quote it: '48:00:00'",
        f"{inventory}/group_vars/all.yml:6: cluster_node_types.h100.weight: 010 is read by YAML as the octal number "
        "8; quote it: '010'",
    ]


def test_a_whole_number_written_with_a_zero_fraction_is_no_coercion(tmp_path: Path) -> None:
    """2000000.0 (a planning document's export) reads as what was written; the model takes it as the whole number."""
    inventory = site(tmp_path, HOSTS, all="cluster_node_types:\n  h100: {real_memory_mb: 2000000.0, weight: 1.50}\n")
    (error,) = inventory_text_errors([str(inventory)], PREFIXES)
    assert "cluster_node_types.h100.weight: 1.50 is read by YAML as the number 1.5" in error


def test_a_reversed_host_range_is_named(tmp_path: Path) -> None:
    inventory = site(tmp_path, HOSTS.replace("gpu[01:16]", "gpu[16:01]"))
    (error,) = inventory_text_errors([str(inventory / "hosts.yml")], PREFIXES)
    assert error.endswith(
        "hosts.yml:5: the host range [16:01] runs backwards, and Ansible turns it into no host at all; write [01:16]"
    )


def test_a_model_variable_outside_group_vars_all_is_refused(tmp_path: Path) -> None:
    inventory = site(tmp_path, HOSTS, compute="slurm_ctld_manager: systemd\ncluster_scheduling: {}\n")
    (error,) = inventory_text_errors([str(inventory)], PREFIXES)
    assert "group_vars/compute.yml:2: cluster_scheduling is set in group_vars/compute" in error
    assert "move it to group_vars/all" in error


def test_vault_files_and_command_line_host_lists_are_skipped(tmp_path: Path) -> None:
    inventory = site(tmp_path, HOSTS, vault="$ANSIBLE_VAULT;1.1;AES256\n6162\n")
    assert inventory_text_errors([str(inventory), "gpu01,gpu02,"], PREFIXES) == []


def test_a_variables_file_ansible_never_reads_is_named(tmp_path: Path) -> None:
    """Ansible takes the first of group_vars/<name>/, <name>.yml, <name>.yaml for a group and ignores the rest: a
    group_vars/all.yml beside a copied sample's group_vars/all/ (its cluster_name never read), all.yaml beside
    all.yml."""
    inventory = site(tmp_path, HOSTS, all="cluster_name: mine\n", compute="slurm_x: 1\n")
    (inventory / "group_vars" / "all").mkdir()
    (inventory / "group_vars" / "all" / "cluster.yml").write_text("cluster_name: sample\n")
    (inventory / "group_vars" / "compute.yaml").write_text("slurm_x: 2\n")
    errors = inventory_text_errors([str(inventory)], PREFIXES)
    assert errors == [
        f"{inventory}/group_vars/all.yml: never read - Ansible reads {inventory}/group_vars/all/ for group 'all' and "
        f"ignores the file beside it; move its variables into {inventory}/group_vars/all/",
        f"{inventory}/group_vars/compute.yaml: never read - Ansible reads {inventory}/group_vars/compute.yml for group "
        f"'compute' and ignores the file beside it; move its variables into {inventory}/group_vars/compute.yml",
    ], errors
