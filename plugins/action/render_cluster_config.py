"""Render slurm.conf, gres.conf and the topology file of the cluster model into a directory on the
Ansible controller, in one task: from the run's plan (``plan``: what the opening validation built, used while it
stands for this inventory) or a plan built here, the role's templates lay it out, and only files whose content
changed are written (check mode and --diff supported)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.template import trust_as_template
from ansible_collections.gpucluster.cluster.plugins.module_utils.cluster_types import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.plan import plan_for
from ansible_collections.gpucluster.cluster.plugins.plugin_utils import tier1
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.worker import freeze_inherited_heap


class ActionModule(ActionBase):  # type: ignore[misc]  # ansible ships no type information
    """gpucluster.cluster.render_cluster_config"""

    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(("spec", "plan", "dest", "mode"))

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        freeze_inherited_heap()
        result: dict[str, Any] = super().run(tmp, task_vars)
        args = self._task.args
        names, templar = self._scope(task_vars or {})
        spec = args["spec"] if "spec" in args else tier1.render(templar, names["__cluster_spec"])
        dest = Path(str(args["dest"] if "dest" in args else templar.template(names["cluster_config_dir"]))).expanduser()
        mode = int(
            str(args["mode"] if "mode" in args else templar.template(names.get("cluster_config_mode", "0644"))), 8
        )
        try:
            # the inventory's groups as Ansible holds them: through an argument, Ansible would template every host name
            groups = (task_vars or {}).get("groups", {})
            configs = plan_for(spec, groups, args.get("plan"))[0]["configs"]
        except InventoryError as exc:
            raise AnsibleActionFail("invalid cluster inventory:\n- " + "\n- ".join(exc.errors)) from exc

        changed: list[str] = []
        diffs: list[dict[str, str]] = []
        files: list[str] = []
        # A federation: one directory per pod (its ClusterName), each a whole cluster's configuration.
        for pod, config in configs.items():
            prefix = f"{pod}/" if pod else ""
            pod_changed, pod_diffs = self._render(config, dest / pod if pod else dest, mode, names, prefix)
            changed += pod_changed
            diffs += pod_diffs
            files += [prefix + name for name in config["files"]]
        summary = (
            {pod: config["summary"] for pod, config in configs.items()} if "" not in configs else configs[""]["summary"]
        )
        result.update(changed=bool(changed), files=files, updated=changed, dest=str(dest), summary=summary)
        if self._task.diff and diffs:
            result["diff"] = diffs
        return result

    def _scope(self, task_vars: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        """The cluster role's variables and a templar over them: the task's own in the role (its render entry point
        passes the spec), else read from the role as the opening validation reads them (playbooks/render.yml runs
        this action alone: one task), the values only this entry point's argument specs name checked here."""
        if "spec" in self._task.args:
            return task_vars, self._templar
        files, names, templar = tier1.role_scope("cluster", task_vars, self._templar.copy_with_new_env())
        problems = tier1.argument_problems("cluster", files.beyond_validate("render"), names, templar)
        if problems:
            raise AnsibleActionFail("; ".join(problems))
        return names, templar

    def _render(
        self,
        config: dict[str, Any],
        dest: Path,
        mode: int,
        task_vars: dict[str, Any],
        prefix: str,
    ) -> tuple[list[str], list[dict[str, str]]]:
        changed: list[str] = []
        diffs: list[dict[str, str]] = []
        wanted: list[str] = config["files"]
        variables = {**task_vars, "__cluster_config": config}
        templar = self._templar.copy_with_new_env(available_variables=variables)
        for name in wanted:
            source = (tier1.ROLES / "cluster" / "templates" / f"{name}.j2").read_text()
            content = str(templar.template(trust_as_template(source)))
            if not content.endswith("\n"):
                content += "\n"
            target = dest / name
            before = target.read_text() if target.exists() else ""
            if before != content or (target.exists() and (target.stat().st_mode & 0o7777) != mode):
                changed.append(prefix + name)
                diffs.append(
                    {"before_header": str(target), "after_header": str(target), "before": before, "after": content}
                )
                if not self._task.check_mode:
                    self._write(target, content, mode)
        for name in config["stale_files"]:
            stale = dest / name
            if stale.exists():
                changed.append(f"removed {prefix}{name}")
                diffs.append(
                    {"before_header": str(stale), "after_header": "(absent)", "before": stale.read_text(), "after": ""}
                )
                if not self._task.check_mode:
                    stale.unlink()
        return changed, diffs

    @staticmethod
    def _write(target: Path, content: str, mode: int) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        with os.fdopen(handle, "w") as stream:
            stream.write(content)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
