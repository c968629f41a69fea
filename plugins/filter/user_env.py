"""Filters of the user_env role: the environment modules of a node."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.modulefiles import modulefiles


def user_env_modulefiles(
    packages: Mapping[str, Sequence[Mapping[str, Any]]], python: str = "python3"
) -> list[dict[str, str]]:
    """{name, version, path, text} of every Lua modulefile of a node (CUDA, NCCL, the users' Python, MPI), made from
    its installed packages (ansible_facts.packages) and the Python the examples run."""
    return modulefiles(packages, python)


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {"user_env_modulefiles": user_env_modulefiles}
