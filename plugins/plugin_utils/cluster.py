"""Controller-side helper of the filter plugins: the cluster model, or the Ansible error listing every
inventory problem."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import Cluster, InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import build_cluster, build_pods
from ansible_collections.gpucluster.cluster.plugins.module_utils.plan import validated_plan
from ansible_collections.gpucluster.cluster.plugins.module_utils.slurmconf import script_source
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.inventory_text import inventory_text_errors
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.variables import (
    ROOT,
    boolean_errors,
    known_variables,
    unknown_variables,
)


def inventory_error(exc: InventoryError) -> AnsibleFilterError:
    return AnsibleFilterError("invalid cluster inventory:\n- " + "\n- ".join(exc.errors))


def cluster_or_raise(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> Cluster:
    """build_cluster(), raising AnsibleFilterError with every problem instead of InventoryError."""
    try:
        return build_cluster(spec, groups)
    except InventoryError as exc:
        raise inventory_error(exc) from exc


def pods_or_raise(spec: Mapping[str, Any], groups: Mapping[str, Sequence[str]]) -> dict[str, Cluster]:
    """build_pods() ({"": cluster} or {pod: cluster}), raising AnsibleFilterError with every problem."""
    try:
        return build_pods(spec, groups)
    except InventoryError as exc:
        raise inventory_error(exc) from exc


def cluster_validation(
    spec: Mapping[str, Any],
    groups: Mapping[str, Sequence[str]],
    variable_names: Sequence[str] = (),
    sources: Sequence[str] = (),
    booleans: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Every validation error of the inventory (``problems``, empty when it is valid) and, when it is valid, the
    run's ``plan`` built from the same model (empty otherwise). ``variable_names`` (the names the validation host
    sees) are checked for project variables no role reads (a misspelt cluster_schedulling); ``booleans`` (the values
    of those a role declares bool) for values that are not booleans; ``sources`` (ansible_inventory_sources) for
    what only the files show (YAML's coercions, reversed host ranges, model variables outside group_vars/all).
    Those come first, alone: the model's messages about the values YAML changed would only repeat them."""
    errors = unknown_variables(variable_names) + boolean_errors(booleans or {})
    text = inventory_text_errors(sources, known_variables()[1])
    if text:
        return {"problems": errors + text, "plan": {}}
    problems, plan = validated_plan(spec, groups)
    errors += problems or job_script_errors(plan) + job_submit_errors(plan)
    return {"problems": errors, "plan": {} if errors else plan}


# The sample prolog/epilog scripts (a job script named without a slash), in the cluster role of this collection.
SAMPLE_SCRIPTS = ROOT / "roles" / "cluster" / "files" / "job_scripts"


def job_script_errors(plan: Mapping[str, Any], samples: Path = SAMPLE_SCRIPTS) -> list[str]:
    """The job scripts of the plan (every pod's) that are not on the Ansible controller: a sample that is not one, or
    a path (relative to the directory Ansible runs in) that is not a file. Checked once before any host is touched."""
    known = sorted(path.name for path in samples.iterdir()) if samples.is_dir() else []
    errors: list[str] = []
    for config in plan.get("configs", {}).values():
        for kind in config["job_scripts"]:
            for entry in kind["files"]:
                source = str(entry["src"])
                if Path(script_source(source, str(samples))).is_file():
                    continue
                error = (
                    f"cluster_job_scripts.{kind['kind']}: {source} does not exist on the Ansible controller; use a"
                    f" sample ({', '.join(known)}) or the path of your script"
                )
                errors += [] if error in errors else [error]
    return errors


# Where the slurm role's copy task finds a relative src: the role's files, the role, the playbooks' files and the
# playbooks (beside the directory Ansible runs in).
COPY_SEARCH = (
    ROOT / "roles" / "slurm" / "files",
    ROOT / "roles" / "slurm",
    ROOT / "playbooks" / "files",
    ROOT / "playbooks",
)


def job_submit_errors(plan: Mapping[str, Any], search: Sequence[Path] = COPY_SEARCH) -> list[str]:
    """The site's job_submit.lua (cluster_job_submit.script, a path) that is not on the Ansible controller: the
    controllers' copy of it would stop the run after the hosts before them had changed. Checked once, before."""
    errors: list[str] = []
    for config in plan.get("configs", {}).values():
        source = str(config["job_submit"]["file"])
        if not source or Path(source).is_file():
            continue
        if not Path(source).is_absolute() and any((base / source).is_file() for base in search):
            continue
        error = (
            f"cluster_job_submit.script: {source} does not exist on the Ansible controller; give the path of the "
            "site's job_submit.lua, or the sample gpu-policy"
        )
        errors += [] if error in errors else [error]
    return errors
