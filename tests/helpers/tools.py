"""Load a role's extension-less Python tool (roles/<role>/files/...) as a module for tests; render a users' example."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import jinja2

ROOT = Path(__file__).resolve().parents[2]


def load_tool(role: str, name: str, subdir: str = "") -> ModuleType:
    path = ROOT / "roles" / role / "files" / subdir / name
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"), str(path))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    assert spec
    module = importlib.util.module_from_spec(spec)
    sys.modules[loader.name] = module  # dataclasses look their module up
    loader.exec_module(module)
    return module


def stand_in(bin_dir: Path, name: str, script: str) -> Path:
    """An executable ``name`` in ``bin_dir`` (made when missing) running ``script``: a program the test puts first on
    PATH in place of one the host lacks or must not run (logger, nvidia-smi, srun, scontrol)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    program = bin_dir / name
    program.write_text(script)
    program.chmod(0o755)
    return program


def render_torchrun_sbatch(python: str, examples_dir: str) -> str:
    """The user_env role's torchrun.sbatch for one GPU per node, rendered as the role renders it (trim_blocks, the
    example's variables), with `python` as the users' interpreter."""
    templates = ROOT / "roles" / "user_env" / "templates" / "examples"
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(templates), keep_trailing_newline=True, trim_blocks=True)
    example = {
        "partition": "gpu",
        "gpus": 1,
        "gpu_type": "gpu",
        "cpus_per_gpu": 4,
        "mem_per_gpu_mb": 1000,
        "time": {"train": "00:10:00"},
    }
    return env.get_template("torchrun.sbatch.j2").render(
        __user_env_example_header="rendered by a test",
        __user_env_ex=example,
        user_env_python=python,
        user_env_socket_ifname="",
        user_env_examples_dir=examples_dir,
    )
