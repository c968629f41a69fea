"""Render slurm.conf, gres.conf and the topology file of the cluster model into a directory on the
Ansible controller, in one task: the model is computed once, the role's templates lay it out, and only
files whose content changed are written (check mode and --diff supported)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from ansible.errors import AnsibleActionFail
from ansible.plugins.action import ActionBase
from ansible.template import trust_as_template
from ansible_collections.gpucluster.cluster.plugins.module_utils.model import InventoryError
from ansible_collections.gpucluster.cluster.plugins.module_utils.render import config_from_inventory


class ActionModule(ActionBase):  # type: ignore[misc]  # ansible ships no type information
    """gpucluster.cluster.render_cluster_config"""

    TRANSFERS_FILES = False
    _requires_connection = False
    _VALID_ARGS = frozenset(("spec", "groups", "dest", "mode"))

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result: dict[str, Any] = super().run(tmp, task_vars)
        args = self._task.args
        dest = Path(str(args["dest"])).expanduser()
        mode = int(str(args.get("mode", "0644")), 8)
        try:
            config = config_from_inventory(args["spec"], args["groups"])
        except InventoryError as exc:
            raise AnsibleActionFail("invalid cluster inventory:\n- " + "\n- ".join(exc.errors)) from exc

        wanted: list[str] = config["files"]
        variables = {**(task_vars or {}), "__cluster_config": config}
        templar = self._templar.copy_with_new_env(available_variables=variables)

        changed: list[str] = []
        diffs: list[dict[str, str]] = []
        for name in wanted:
            source = Path(self._find_needle("templates", f"{name}.j2")).read_text()
            content = str(templar.template(trust_as_template(source)))
            if not content.endswith("\n"):
                content += "\n"
            target = dest / name
            before = target.read_text() if target.exists() else ""
            if before != content or (target.exists() and (target.stat().st_mode & 0o7777) != mode):
                changed.append(name)
                diffs.append(
                    {"before_header": str(target), "after_header": str(target), "before": before, "after": content}
                )
                if not self._task.check_mode:
                    self._write(target, content, mode)
        for name in config["stale_files"]:
            stale = dest / name
            if stale.exists():
                changed.append(f"removed {name}")
                diffs.append(
                    {"before_header": str(stale), "after_header": "(absent)", "before": stale.read_text(), "after": ""}
                )
                if not self._task.check_mode:
                    stale.unlink()

        result.update(changed=bool(changed), files=wanted, updated=changed, dest=str(dest), summary=config["summary"])
        if self._task.diff and diffs:
            result["diff"] = diffs
        return result

    @staticmethod
    def _write(target: Path, content: str, mode: int) -> None:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        with os.fdopen(handle, "w") as stream:
            stream.write(content)
        os.chmod(temporary, mode)
        os.replace(temporary, target)
