"""Environment modules (Lmod) for the software the deployment put on a node: CUDA, NCCL, the users' Python (with its
PyTorch) and MPI, read from the node's package list (Ansible's package_facts) and written as Lua modulefiles
``<name>/<version>.lua``. A job script that begins ``module load cuda nccl python`` then runs unchanged.

What each module does follows where the packages put things: NVIDIA's CUDA repository installs each toolkit
under /usr/local/cuda-X.Y (the module puts its bin and lib64 first and sets CUDA_HOME); Debian's packages install
into /usr, where every program already looks, so their modules only name what is there (CUDA_VERSION,
NCCL_VERSION) - loading them changes nothing a program would miss, and a script written for a site that needs
them runs here as well.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

HEADER = (
    "-- Managed by gpucluster (Ansible, user_env role): made from this node's packages; local edits are overwritten."
)
_NUMBERS = re.compile(r"^\d+(\.\d+)*")
_CUDA_TOOLKIT = re.compile(r"^cuda-toolkit-(\d+)-(\d+)$")
_CUDA_RUNTIME = re.compile(r"^libcudart\d+(\.\d+)?$")
NCCL_PACKAGES = ("libnccl2", "libnccl")
MPI_PACKAGES = {"openmpi-bin": "openmpi", "openmpi": "openmpi", "mpich": "mpich"}
Packages = Mapping[str, Sequence[Mapping[str, Any]]]


def upstream(version: str, parts: int = 3) -> str:
    """The first ``parts`` numbers of a package's upstream version: '1:12.4.127~12.4.1-2' -> '12.4' (parts=2)."""
    text = version.split(":", 1)[-1]
    text = text.rsplit("-", 1)[0] if "-" in text else text
    found = _NUMBERS.match(text)
    return ".".join(found.group(0).split(".")[:parts]) if found else ""


def _version(packages: Packages, name: str, parts: int = 3) -> str:
    versions = [upstream(str(entry.get("version", "")), parts) for entry in packages.get(name, ())]
    return max((v for v in versions if v), key=_key, default="")


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(n) for n in version.split("."))


def _lua(text: str) -> str:
    """A Lua string literal of ``text`` (a newline in a path of the inventory stays inside the string)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'


def _module(name: str, version: str, description: str, lines: Sequence[str], family: str = "") -> dict[str, str]:
    body = [
        HEADER,
        f"whatis({_lua('Name: ' + name)})",
        f"whatis({_lua('Version: ' + version)})",
        f"whatis({_lua('Description: ' + description)})",
        f"help({_lua(description)})",
        *([f"family({_lua(family)})"] if family else []),
        *lines,
    ]
    return {"name": name, "version": version, "path": f"{name}/{version}.lua", "text": "\n".join(body) + "\n"}


def _cuda(packages: Packages) -> list[dict[str, str]]:
    modules: dict[str, dict[str, str]] = {}
    for package in packages:
        found = _CUDA_TOOLKIT.match(package)
        if found:
            version = f"{found.group(1)}.{found.group(2)}"
            home = f"/usr/local/cuda-{version}"
            modules[version] = _module(
                "cuda",
                version,
                f"CUDA {version} toolkit (NVIDIA's packages, {home})",
                [
                    f'setenv("CUDA_HOME", {_lua(home)})',
                    f'setenv("CUDA_VERSION", {_lua(version)})',
                    f'prepend_path("PATH", {_lua(home + "/bin")})',
                    f'prepend_path("LD_LIBRARY_PATH", {_lua(home + "/lib64")})',
                ],
                family="cuda",
            )
    # Debian's toolkit, then the runtime alone: in /usr, so the module only names the version (a toolkit's module of
    # the same version wins)
    plain = [
        (_version(packages, "nvidia-cuda-toolkit", 2), "toolkit (Debian's packages: nvcc and the libraries in /usr)")
    ]
    plain += [
        (_version(packages, package, 2), f"runtime library ({package}; no toolkit, no nvcc)")
        for package in packages
        if _CUDA_RUNTIME.match(package)
    ]
    for version, what in plain:
        if version and version not in modules:
            modules[version] = _module(
                "cuda", version, f"CUDA {version} {what}", [f'setenv("CUDA_VERSION", {_lua(version)})'], family="cuda"
            )
    return list(modules.values())


def _nccl(packages: Packages) -> list[dict[str, str]]:
    for package in NCCL_PACKAGES:
        version = _version(packages, package)
        if version:
            description = f"NCCL {version} ({package}; the cluster's settings are in /etc/nccl.conf)"
            return [_module("nccl", version, description, [f'setenv("NCCL_VERSION", {_lua(version)})'])]
    return []


def _python(packages: Packages, python: str) -> list[dict[str, str]]:
    version = _version(packages, "python3", 2)
    if not version:
        return []
    torch = _version(packages, "python3-torch")
    lines = []
    directory = python.rsplit("/", 1)[0] if python.startswith("/") else ""
    if directory and directory not in ("/usr/bin", "/bin"):
        lines.append(f'prepend_path("PATH", {_lua(directory)})')
    with_torch = f", PyTorch {torch}" if torch else ""
    return [_module("python", version, f"Python {version}{with_torch} ({python})", lines, family="python")]


def _mpi(packages: Packages) -> list[dict[str, str]]:
    modules: list[dict[str, str]] = []
    for package, name in MPI_PACKAGES.items():
        version = _version(packages, package)
        if version and not any(m["name"] == name for m in modules):
            modules.append(
                _module(name, version, f"{name} {version} ({package}; mpirun in /usr/bin)", [], family="mpi")
            )
    return modules


def modulefiles(packages: Packages, python: str = "python3") -> list[dict[str, str]]:
    """The modulefiles of a node: {name, version, path, text} for each of CUDA (every toolkit and runtime),
    NCCL, the users' Python and MPI found in ``packages``."""
    return [*_cuda(packages), *_nccl(packages), *_python(packages, python), *_mpi(packages)]
