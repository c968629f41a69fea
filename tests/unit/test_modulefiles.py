"""Environment modules from a node's packages: what each package set gives, and nothing for what is missing."""

from __future__ import annotations

from typing import Any

from ansible_collections.gpucluster.cluster.plugins.module_utils.modulefiles import modulefiles, upstream


def packages(**versions: str) -> dict[str, list[dict[str, Any]]]:
    return {name.replace("_", "-"): [{"version": version}] for name, version in versions.items()}


def by_path(found: list[dict[str, str]]) -> dict[str, str]:
    return {module["path"]: module["text"] for module in found}


def test_upstream_versions_of_debian_and_rpm_packages() -> None:
    assert upstream("12.4.127~12.4.1-2", 2) == "12.4"
    assert upstream("2.22.3-1-1") == "2.22.3"
    assert upstream("1:3.13.5-1", 2) == "3.13"
    assert upstream("2.6.0+dfsg-7") == "2.6.0"
    assert upstream("12.4.127") == "12.4.127"
    assert upstream("git20210507") == ""


def test_the_pilot_labs_compute_node() -> None:
    """Debian 13 with the CUDA runtime, NCCL, Python with PyTorch and Open MPI's libraries only (no mpirun)."""
    found = by_path(
        modulefiles(
            packages(
                libcudart12="12.4.127~12.4.1-2",
                libnccl2="2.22.3-1-1",
                python3="3.13.5-1",
                python3_torch="2.6.0+dfsg-7",
                libopenmpi40="5.0.7-1",
            )
        )
    )
    assert sorted(found) == ["cuda/12.4.lua", "nccl/2.22.3.lua", "python/3.13.lua"]
    assert 'setenv("CUDA_VERSION", "12.4")' in found["cuda/12.4.lua"]
    assert "no toolkit, no nvcc" in found["cuda/12.4.lua"] and 'family("cuda")' in found["cuda/12.4.lua"]
    assert 'setenv("NCCL_VERSION", "2.22.3")' in found["nccl/2.22.3.lua"]
    assert "Python 3.13, PyTorch 2.6.0 (python3)" in found["python/3.13.lua"]
    assert "prepend_path" not in found["python/3.13.lua"]


def test_nvidia_toolkits_each_get_a_module_with_their_home() -> None:
    found = by_path(
        modulefiles(
            {
                "cuda-toolkit-12-4": [{"version": "12.4.1-1"}],
                "cuda-toolkit-12-8": [{"version": "12.8.0-1"}],
                "cuda-toolkit": [{"version": "12.8.0-1"}],
                "libcudart12": [{"version": "12.8.57-1"}],
                "openmpi-bin": [{"version": "4.1.6-7"}],
            },
            python="/apps/pytorch/bin/python",
        )
    )
    assert sorted(found) == ["cuda/12.4.lua", "cuda/12.8.lua", "openmpi/4.1.6.lua"]
    assert 'prepend_path("PATH", "/usr/local/cuda-12.8/bin")' in found["cuda/12.8.lua"]
    assert 'setenv("CUDA_HOME", "/usr/local/cuda-12.4")' in found["cuda/12.4.lua"]
    assert 'family("mpi")' in found["openmpi/4.1.6.lua"]


def test_a_site_python_is_put_first_on_path_and_nothing_is_made_for_what_is_missing() -> None:
    found = by_path(modulefiles(packages(python3="3.11.2-1+b1"), python="/apps/pytorch/bin/python"))
    assert list(found) == ["python/3.11.lua"]
    assert 'prepend_path("PATH", "/apps/pytorch/bin")' in found["python/3.11.lua"]
    assert modulefiles({}) == []


def test_the_debian_toolkit_names_its_version_only() -> None:
    found = by_path(modulefiles(packages(nvidia_cuda_toolkit="12.4.131~12.4.1-1", libcudart12="12.4.127~12.4.1-2")))
    assert list(found) == ["cuda/12.4.lua"]
    assert "Debian's packages: nvcc and the libraries in /usr" in found["cuda/12.4.lua"]


def test_a_python_path_with_a_newline_stays_inside_its_lua_string() -> None:
    text = modulefiles(packages(python3="3.13.5-1"), python='/apps/py"\nos.execute("x")/bin/python')[0]["text"]
    assert 'prepend_path("PATH", "/apps/py\\"\\nos.execute(\\"x\\")/bin")' in text
    assert "\nos.execute" not in text
