"""plugstack.conf from the inventory: one line per SPANK plugin, no include.

Debian's plugstack.conf includes `/etc/slurm/plugstack.conf.d/*.conf`: in configless mode slurmctld cannot
parse the glob ("does not support glob parsing", "Include failed" at every start and reconfigure) and the
included files never reach the nodes, so a SPANK plugin (pyxis) would silently not load. The file written here
names each plugin itself, and configless mode serves it to every node."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath
from typing import Any

from .values import unsafe_values


def plugstack_errors(plugins: Any, variable: str = "slurm_spank_plugins") -> list[str]:
    """What is wrong with the plugin list: each entry {path (absolute .so), args (list of words), optional}."""
    if not isinstance(plugins, Sequence) or isinstance(plugins, str):
        return [f"{variable} must be a list of {{path, args, optional}}, not {type(plugins).__name__}"]
    errors = unsafe_values({variable: list(plugins)}, prefix="")
    for index, plugin in enumerate(plugins):
        at = f"{variable}[{index}]"
        if not isinstance(plugin, Mapping):
            errors.append(f"{at} must be a mapping with path (and args, optional), not {plugin!r}")
            continue
        unknown = sorted(set(map(str, plugin)) - {"path", "args", "optional"})
        if unknown:
            errors.append(f"{at}: unknown keys {', '.join(unknown)} (path, args, optional)")
        path = str(plugin.get("path") or "")
        if not PurePosixPath(path).is_absolute() or not path.endswith(".so") or any(c.isspace() for c in path):
            errors.append(f"{at}.path {path!r} must be the absolute path of the plugin's .so file")
        args = plugin.get("args", [])
        if (
            isinstance(args, str)
            or not isinstance(args, Sequence)
            or any(any(c.isspace() for c in str(arg)) or str(arg) == "" for arg in args)
        ):
            errors.append(f"{at}.args must be a list of words without spaces (plugstack.conf splits on spaces)")
        if not isinstance(plugin.get("optional", False), bool):
            errors.append(f"{at}.optional must be true or false")
    return errors


def plugstack_lines(plugins: Sequence[Mapping[str, Any]]) -> list[str]:
    """`required|optional <path> <args...>` for each plugin (validated first: plugstack_errors)."""
    return [
        " ".join(
            ["optional" if plugin.get("optional") else "required", str(plugin["path"])]
            + [str(arg) for arg in plugin.get("args", [])]
        )
        for plugin in plugins
    ]
