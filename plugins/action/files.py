"""A role's directories and text files on a host in one task: templates rendered and files read on the controller
(as ansible.builtin.template and copy do), then one module call that writes what differs. A loop of N copy or
template tasks costs the host N module runs on every run; this costs one (docs/scale.md)."""

from __future__ import annotations

import os
from typing import Any

from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.plugins.action import ActionBase
from ansible.template import trust_as_template

_SOURCES = ("template", "src", "content")


class ActionModule(ActionBase):  # type: ignore[misc]  # ansible ships no type information
    """gpucluster.cluster.files"""

    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(("files", "directories", "purge", "owner", "group", "mode", "directory_mode"))

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        result: dict[str, Any] = super().run(tmp, task_vars)
        args = self._task.args
        defaults = {"owner": args.get("owner", "root"), "group": args.get("group", "root")}
        mode = str(args.get("mode", "0644"))
        directory_mode = str(args.get("directory_mode", "0755"))
        directories = [
            {**defaults, "mode": directory_mode, **entry}
            if isinstance(entry, dict)
            else {**defaults, "mode": directory_mode, "path": str(entry)}
            for entry in args.get("directories") or []
        ]
        files = [
            {
                "owner": entry.get("owner", defaults["owner"]),
                "group": entry.get("group", defaults["group"]),
                "dest": str(entry["dest"]),
                "mode": str(entry.get("mode", mode)),
                "content": content,
                **({"validate": str(entry["validate"])} if entry.get("validate") else {}),
            }
            for entry, content in ((entry, self._content(entry, task_vars or {})) for entry in args.get("files") or [])
        ]
        module_args = {"directories": directories, "files": files, "purge": list(args.get("purge") or [])}
        returned: dict[str, Any] = self._execute_module(
            module_name="gpucluster.cluster.files_put", module_args=module_args, task_vars=task_vars
        )
        result.update(returned)
        return result

    def _content(self, entry: Any, task_vars: dict[str, Any]) -> str:
        if not isinstance(entry, dict) or "dest" not in entry or sum(key in entry for key in _SOURCES) != 1:
            raise AnsibleActionFail(f"files: each entry needs dest and one of {', '.join(_SOURCES)}: {entry!r}")
        if "content" in entry:
            return str(entry["content"])
        kind = "templates" if "template" in entry else "files"
        try:
            source = self._find_needle(kind, str(entry.get("template", entry.get("src"))))
        except AnsibleError as exc:
            raise AnsibleActionFail(f"files: {entry['dest']}: {exc}") from exc
        text = self._loader.get_text_file_contents(source)
        if kind == "files":
            return str(text)
        # As ansible.builtin.template renders (its search path and Jinja settings), without its template_* variables.
        searchpath = [*task_vars.get("ansible_search_path", []), self._loader._basedir, os.path.dirname(source)]
        searchpath = [path for base in searchpath for path in (os.path.join(base, "templates"), base)]
        templar = self._templar.copy_with_new_env(searchpath=searchpath, available_variables=task_vars)
        overrides = {"trim_blocks": True, "lstrip_blocks": False, "newline_sequence": "\n"}
        rendered = templar.template(trust_as_template(text), escape_backslashes=False, overrides=overrides)
        return "" if rendered is None else str(rendered)
