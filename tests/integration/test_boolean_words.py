"""Every playbook's validation with every boolean variable given on the command line as a word: `-e flag=false`
arrives as the string "false". Each playbook's opening checks accept the words Ansible reads as booleans and
refuse any other word, naming the variable. (What the play then does with "false" - the same as with a real
false - is checked on a converged cluster in tests/lab/test_pilot_lab.py.)

The sample inventories' hosts do not exist: ssh is pointed at a ProxyCommand that fails, so a run whose
validation passes stops at the first play that contacts a host, as unreachable, and never touches this machine.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.variables import boolean_variables

from tests.lab.molecule_run import failures, recap

from .conftest import ROOT
from .test_validate_playbook import playbook

BOOLEANS = sorted(boolean_variables())
NO_HOST = ("-e", "ansible_ssh_common_args='-o ProxyCommand=false'")

# playbook -> (sample inventory, the extra variables its own gate asks for)
PLAYBOOKS: dict[str, tuple[str, tuple[str, ...]]] = {
    "site.yml": ("pilot", ()),
    "deploy.yml": ("pilot", ()),
    "pilot.yml": ("pilot", ()),
    "validate.yml": ("pilot", ()),
    "scale.yml": ("pilot", ()),
    "remove-node.yml": ("pilot", ("-e", "cluster_removed_nodes=pilot-gpu16")),
    "restore.yml": ("pilot", ("-e", "restore=accounting")),
    "upgrade-slurm.yml": ("pilot", ()),
    "render.yml": ("pilot", ()),
    "user_guide.yml": ("pilot", ()),
    "upgrade-production.yml": ("production", ()),
    "galera-recover.yml": ("production", ()),
    "upgrade-federation.yml": ("federation", ()),
}


def words(word: str, names: list[str]) -> tuple[str, ...]:
    """``-e name=word`` for each name: the key=value form, in which Ansible passes every value as a string."""
    return ("-e", " ".join(f"{name}={word}" for name in names))


def test_every_playbook_is_in_the_table() -> None:
    # new-inventory.yml writes an inventory and validates it with validate.yml (tests/integration/test_new_inventory.py)
    # boilerplate.yml, confirm.yml and live_state.yml are imported by the others, never run alone
    shared = {"boilerplate.yml", "confirm.yml", "live_state.yml", "new-inventory.yml"}
    entry_points = {path.name for path in (ROOT / "playbooks").glob("*.yml")} - shared
    assert entry_points == set(PLAYBOOKS)


CASES = [(name, "false") for name in sorted(PLAYBOOKS)] + [("validate.yml", "no"), ("validate.yml", "Off")]


@pytest.mark.parametrize(("name", "word"), CASES)
def test_each_playbooks_validation_takes_every_boolean_as_a_word(name: str, word: str, tmp_path: Path) -> None:
    site, extra = PLAYBOOKS[name]
    outputs = ("-e", f"cluster_config_dir={tmp_path} user_env_guide_render_path={tmp_path / 'guide.md'}")
    result = playbook(ROOT / "inventories" / site, name, *words(word, BOOLEANS), *NO_HOST, *extra, *outputs)
    out = result.stdout
    # the validation passed: no task failed; the run ended at the first host it could not reach (rc 4, or 2
    # after a gate that tolerates unreachable hosts), or with rc 0 where the playbook works on this machine alone
    assert "FAILED!" not in out, failures(out)
    assert {host: counters["failed"] for host, counters in recap(out).items() if counters["failed"]} == {}, out[-4000:]
    assert result.returncode in (0, 2, 4), out[-4000:]
    assert "TASK [Check the Ansible version, the cluster model" in out, out[-4000:]


def test_a_word_that_is_not_a_boolean_is_refused_naming_every_variable() -> None:
    """The roles' booleans are named by the model's check, every one at once; the model's own (cluster_...) by
    the cluster role's argument specs."""
    roles = [name for name in BOOLEANS if not name.startswith("cluster_")]
    result = playbook(ROOT / "inventories" / "pilot", "validate.yml", *words("maybe", roles))
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    missing = [
        name for name in roles if f"variable '{name}' is 'maybe': it is a boolean; set it to true or false" not in out
    ]
    assert missing == [], out[-4000:]

    model = [name for name in BOOLEANS if name.startswith("cluster_")]
    result = playbook(ROOT / "inventories" / "pilot", "validate.yml", *words("maybe", model))
    out = " ".join(result.stdout.split())
    assert result.returncode != 0
    assert all(f"argument '{name}' is of type str and we were unable to convert to bool" in out for name in model)
