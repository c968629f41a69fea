"""Counts the cluster model's builds in every Python process of an ansible-playbook run (the controller and its
workers): with this directory on PYTHONPATH and GPUCLUSTER_COUNT_BUILDS naming a file, each build_cluster() call
appends a line to it. Used by tests/integration/test_plan_once.py and bench/model_builds.py; nothing of the
toolkit reads it."""

from __future__ import annotations

import builtins
import functools
import os
import sys
from typing import Any

MODEL = "ansible_collections.gpucluster.cluster.plugins.module_utils.model"
_import = builtins.__import__


def _counted(build: Any) -> Any:
    @functools.wraps(build)
    def counting(*args: Any, **kwargs: Any) -> Any:
        with open(os.environ["GPUCLUSTER_COUNT_BUILDS"], "a", encoding="utf-8") as log:
            log.write(f"{os.getpid()}\n")
        return build(*args, **kwargs)

    counting.gpucluster_counted = True  # type: ignore[attr-defined]
    return counting


def _import_and_wrap(name: str, *args: Any, **kwargs: Any) -> Any:
    """The import, then the model's build_cluster wrapped as soon as the model is loaded (before the module that
    imported it binds the name)."""
    module = _import(name, *args, **kwargs)
    build = getattr(sys.modules.get(MODEL), "build_cluster", None)  # None while the model is still being loaded
    if build is not None and not getattr(build, "gpucluster_counted", False):
        setattr(sys.modules[MODEL], "build_cluster", _counted(build))  # noqa: B010 - the module is not typed here
    return module


if os.environ.get("GPUCLUSTER_COUNT_BUILDS"):
    builtins.__import__ = _import_and_wrap
