"""plugstack.conf from slurm_spank_plugins, and the operator accounts' associations."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.filter.accounting import accounting_users_with_operators
from ansible_collections.gpucluster.cluster.plugins.filter.slurm import (
    slurm_ctld_manager_errors,
    slurm_plugstack_errors,
    slurm_plugstack_lines,
)

PYXIS = {"path": "/usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so", "args": ["runtime_path=/run/pyxis"]}


def test_each_plugin_is_one_line_and_nothing_is_included() -> None:
    lines = slurm_plugstack_lines([PYXIS, {"path": "/opt/spank/x11.so", "optional": True}])
    assert lines == [
        "required /usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so runtime_path=/run/pyxis",
        "optional /opt/spank/x11.so",
    ]
    assert slurm_plugstack_lines([]) == []


@pytest.mark.parametrize(
    ("plugins", "error"),
    [
        ("pyxis", "slurm_spank_plugins must be a list"),
        ([{"path": "spank_pyxis.so"}], "slurm_spank_plugins[0].path 'spank_pyxis.so' must be the absolute path"),
        ([{"path": "/usr/lib/slurm/plugstack.conf.d/*.conf"}], "must be the absolute path of the plugin's .so"),
        ([{**PYXIS, "args": "runtime_path=/run/pyxis"}], "slurm_spank_plugins[0].args must be a list of words"),
        ([{**PYXIS, "args": ["a b"]}], "slurm_spank_plugins[0].args must be a list of words"),
        ([{**PYXIS, "optional": "yes"}], "slurm_spank_plugins[0].optional must be true or false"),
        ([{**PYXIS, "required": True}], "slurm_spank_plugins[0]: unknown keys required"),
        ([{**PYXIS, "args": ["x\nrequired /tmp/evil.so"]}], "slurm_spank_plugins[0].args[0]"),
    ],
)
def test_a_wrong_plugin_is_named_and_never_written(plugins: object, error: str) -> None:
    errors = slurm_plugstack_errors(plugins)
    assert any(error in message for message in errors), errors
    with pytest.raises(AnsibleFilterError):
        slurm_plugstack_lines(plugins)


def test_operators_get_a_root_association_unless_listed() -> None:
    users = {"alice": {"account": "ml"}, "root": {"account": "ops", "accounts": ["root"]}}
    assert accounting_users_with_operators(users, ["root", "slurm"]) == {
        "alice": {"account": "ml"},
        "root": {"account": "ops", "accounts": ["root"]},
        "slurm": {"account": "root"},
    }
    assert accounting_users_with_operators({}, []) == {}


def test_controllers_run_by_different_managers_are_refused_by_name() -> None:
    assert slurm_ctld_manager_errors({"ctl1": "pacemaker", "ctl2": "pacemaker"}) == []
    assert slurm_ctld_manager_errors({}) == []
    (error,) = slurm_ctld_manager_errors({"p1-ctl1": "pacemaker", "p2-ctl1": "systemd"})
    assert error.startswith("slurm_ctld_manager differs between the controllers (p1-ctl1: pacemaker, p2-ctl1: systemd)")


def test_a_systemd_pair_needs_a_state_save_location_both_controllers_mount() -> None:
    """Slurm's backup controller takes over from StateSaveLocation: under systemd (no Pacemaker to check the share), a
    pair without one set in the inventory would keep the state on each controller's own disk - refused, per cluster
    (per pod in a federation)."""
    groups = {"controllers": ["ctl1", "ctl2"], "pod1": ["ctl1", "ctl2", "gpu1"], "pod2": ["ctl3", "gpu2"]}
    systemd = {"ctl1": "systemd", "ctl2": "systemd"}
    (error,) = slurm_ctld_manager_errors(systemd, groups=groups, slurm_config={})
    assert error.startswith("controllers: the controllers ctl1, ctl2 run slurmctld under systemd"), error
    assert "Slurm makes ctl2 the backup of ctl1" in error and "slurm_ctld_manager: pacemaker" in error
    shared = {"statesavelocation": "/shared/slurmctld"}
    assert slurm_ctld_manager_errors(systemd, groups=groups, slurm_config=shared) == []
    assert slurm_ctld_manager_errors({"ctl1": "pacemaker", "ctl2": "pacemaker"}, groups=groups) == []
    assert slurm_ctld_manager_errors({"ctl1": "systemd"}, groups=groups) == []
    # a federation: pod1's pair is refused unless its own slurm_config (or the shared one) names the directory
    federation = {"name": "fed", "pods": {"pod1": {"group": "pod1"}, "pod2": {"group": "pod2"}}}
    three = {**systemd, "ctl3": "systemd"}
    (error,) = slurm_ctld_manager_errors(three, groups=groups, federation=federation)
    assert error.startswith("cluster_federation.pods.pod1: the controllers ctl1, ctl2 run"), error
    own = {"name": "fed", "pods": {"pod1": {"group": "pod1", "slurm_config": shared}, "pod2": {"group": "pod2"}}}
    assert slurm_ctld_manager_errors(three, groups=groups, federation=own) == []
