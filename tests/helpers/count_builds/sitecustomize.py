"""Counts, in every Python process of an ansible-playbook run (the controller and its workers), the cluster model's
builds and the collection's plugin loads: with this directory on PYTHONPATH,
- GPUCLUSTER_COUNT_BUILDS naming a file: each build_cluster() call appends a line to it (its process id);
- GPUCLUSTER_COUNT_PLUGIN_LOADS naming a file: each plugin module of this collection that Ansible's plugin loader
  executes appends '<process id> <module>' to it.
Used by tests/integration/test_plan_once.py and bench/plan.py; nothing of the toolkit reads it."""

from __future__ import annotations

import builtins
import functools
import os
import sys
from typing import Any

MODEL = "ansible_collections.gpucluster.cluster.plugins.module_utils.model"
LOADER = "ansible.plugins.loader"
COLLECTION = "ansible_collections.gpucluster.cluster.plugins."
_import = builtins.__import__


def _log(variable: str, line: str) -> None:
    with open(os.environ[variable], "a", encoding="utf-8") as log:
        log.write(f"{line}\n")


def _counted(build: Any) -> Any:
    @functools.wraps(build)
    def counting(*args: Any, **kwargs: Any) -> Any:
        _log("GPUCLUSTER_COUNT_BUILDS", str(os.getpid()))
        return build(*args, **kwargs)

    counting.gpucluster_counted = True  # type: ignore[attr-defined]
    return counting


def _logged_load(load: Any) -> Any:
    @functools.wraps(load)
    def logging(self: Any, *, python_module_name: str, **kwargs: Any) -> Any:
        if python_module_name.startswith(COLLECTION) and python_module_name not in sys.modules:
            _log("GPUCLUSTER_COUNT_PLUGIN_LOADS", f"{os.getpid()} {python_module_name}")
        return load(self, python_module_name=python_module_name, **kwargs)

    logging.gpucluster_counted = True  # type: ignore[attr-defined]
    return logging


def _import_and_wrap(name: str, *args: Any, **kwargs: Any) -> Any:
    """The import, then the model's build_cluster (as soon as the model is loaded, before the module that imported
    it binds the name) and the plugin loader's module loading wrapped."""
    module = _import(name, *args, **kwargs)
    if os.environ.get("GPUCLUSTER_COUNT_BUILDS"):
        build = getattr(sys.modules.get(MODEL), "build_cluster", None)  # None while the model is still being loaded
        if build is not None and not getattr(build, "gpucluster_counted", False):
            setattr(sys.modules[MODEL], "build_cluster", _counted(build))  # noqa: B010 - the module is not typed here
    if os.environ.get("GPUCLUSTER_COUNT_PLUGIN_LOADS"):
        loader = getattr(sys.modules.get(LOADER), "PluginLoader", None)
        load = getattr(loader, "_load_module_source", None)
        if load is not None and not getattr(load, "gpucluster_counted", False):
            setattr(loader, "_load_module_source", _logged_load(load))  # noqa: B010
    return module


if os.environ.get("GPUCLUSTER_COUNT_BUILDS") or os.environ.get("GPUCLUSTER_COUNT_PLUGIN_LOADS"):
    builtins.__import__ = _import_and_wrap
