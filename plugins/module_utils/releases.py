"""Slurm releases this project targets and what each one accepts.

Every release-dependent choice of the generators and validators reads this table, so adding a release
is one entry here plus its real-slurmctld test.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .slurm_release_data import RELEASE_DATA

# Debian ships 22.05 in bookworm, 24.11 in trixie and 26.05 in unstable; the others are listed so that
# sites on vendor packages are judged by the same rules.
KNOWN_RELEASES: tuple[str, ...] = (
    "22.05",
    "23.02",
    "23.11",
    "24.05",
    "24.11",
    "25.05",
    "25.11",
    "26.05",
)
# The release an inventory without cluster_slurm_release is written for (Debian 13's).
DEFAULT_RELEASE = "24.11"


# What changed between releases, each with the release that brought it: the one place a release number decides
# what the generators emit, what the validation accepts and how the roles apply a change.
FEATURES: dict[str, str] = {
    # HealthCheckNodeState=START_ONLY
    "health_start_only": "23.02",
    # HealthCheckNodeState=NONDRAINED_IDLE (22.05's slurmctld ignores the word with an error: every state is checked)
    "health_nondrained_idle": "23.02",
    # SelectTypeParameters CR_ALLOCATE_FULL_SOCKET removed (22.05 takes it, 24.11 and 26.05 stop: "Bad
    # SelectTypeParameter"; the releases between are not tested)
    "no_allocate_full_socket": "23.02",
    # SelectTypeParameters LL_SHARED_GRES, MULTIPLE_SHARING_GRES_PJ, ENFORCE_BINDING_GRES, ONE_TASK_PER_SHARING_GRES
    # (22.05 stops on them, 24.11 and 26.05 take them)
    "select_sharing_gres": "23.02",
    # SelectTypeParameters CR_NO_DIST_TOPO_BLOCK (24.11 stops on it, 26.05 takes it)
    "select_no_dist_topo_block": "25.05",
    # the QOS flag Relative (sacctmgr of 22.05: "Unknown QOS flag used in: 'Relative'"; 24.11 and 26.05 take it)
    "qos_relative": "23.11",
    # PrologFlags=ForceRequeueOnFail (22.05's slurmctld stops: "Invalid PrologFlag")
    "prolog_force_requeue": "23.02",
    # PrologFlags=RunInJob, the prolog and epilog in the job's extern step (22.05 stops on it; 24.11 and 26.05 take it)
    "prolog_run_in_job": "24.05",
    # topology/block (NVLink domains)
    "topology_block": "23.11",
    # slurmctld takes added or removed nodes and partitions on `scontrol reconfigure`; before, only on a restart
    "reconfigure_node_changes": "23.11",
    # a host range with text after it (NodeName=gpu[01-02]-ib) in node lines: 22.05's slurmctld stops on it
    # ("Unable to create NodeAddr list"), 24.11 and 26.05 read it; the releases between are not tested here
    "folds_suffixed_names": "24.11",
    # gres/gpumem and gres/gpuutil tracked with gres/gpu, without AccountingStorageTRES naming them (the real
    # slurmctld: 24.11 and 26.05 list them, 22.05 stops on a PriorityWeightTRES of gres/gpumem; between: not tested)
    "gpu_usage_tres": "24.11",
    # gres.conf AutoDetect=nvidia (no NVML library needed)
    "autodetect_nvidia": "24.11",
    # SchedMD's compatibility window grows from two earlier major releases to three
    "three_release_window": "24.11",
    # topology.yaml, several topologies at once, read before topology.conf
    "topology_yaml": "25.05",
    # job_container.conf Dirs= (the private directories; /tmp and /dev/shm before)
    "job_container_dirs": "23.02",
    # the job_container plugins became namespace plugins: NamespaceType=namespace/tmpfs (job_container.conf kept)
    "namespace_plugins": "25.11",
    # slurmctld's own OpenMetrics endpoints (MetricsType=metrics/openmetrics, GET /metrics/... on its port)
    "openmetrics": "25.11",
    # a job that names a partition slurm.conf no longer has and another one too is kept, in the other (26.05);
    # before, slurmctld ends it with the jobs of that partition alone (22.05, 24.11: "Invalid partition", NODE_FAIL;
    # the releases between are not tested here)
    "keeps_jobs_of_other_partitions": "26.05",
    # gres.conf AutoDetect=full (try every method)
    "autodetect_full": "26.05",
}


@dataclass(frozen=True, slots=True, order=True)
class Release:
    """A Slurm major release such as 24.11, ordered by (year, month)."""

    year: int
    month: int

    @classmethod
    def parse(cls, text: str) -> Release:
        year, _, month = text.partition(".")
        return cls(int(year), int(month))

    def __str__(self) -> str:
        return f"{self.year:02d}.{self.month:02d}"

    def has(self, feature: str) -> bool:
        """Whether this release has ``feature`` (a key of FEATURES)."""
        return self >= Release.parse(FEATURES[feature])

    @staticmethod
    def introducing(feature: str) -> str:
        """The release that brought ``feature``, for messages ("needs Slurm >= 24.11")."""
        return FEATURES[feature]

    @property
    def topology_block(self) -> bool:
        return self.has("topology_block")

    @property
    def topology_yaml(self) -> bool:
        return self.has("topology_yaml")

    @property
    def folds_suffixed_names(self) -> bool:
        return self.has("folds_suffixed_names")

    @property
    def autodetect_nvidia(self) -> bool:
        return self.has("autodetect_nvidia")

    @property
    def autodetect_full(self) -> bool:
        return self.has("autodetect_full")

    @property
    def node_changes(self) -> str:
        """How slurmctld takes a changed node or partition set: "reconfigure" from 23.11, "restart" before."""
        return "reconfigure" if self.has("reconfigure_node_changes") else "restart"

    @property
    def rest_api_version(self) -> str:
        """The newest version of slurmrestd's /slurm/ API the release serves (v0.0.42 on 24.11), from the plugins of
        Debian's packages (data_parser_v0_0_NN from 23.02, openapi_v0_0_NN before); "" for a release not read from
        Debian (slurmrestd lists its versions at /openapi/v3)."""
        plugins = RELEASE_DATA.get(str(self), {}).get("plugins")
        pattern = re.compile(r"(?:data_parser|openapi)_v0_0_(\d+)")
        found = (pattern.fullmatch(str(plugin)) for plugin in (plugins if isinstance(plugins, list) else []))
        versions = [int(match[1]) for match in found if match]
        return f"v0.0.{max(versions)}" if versions else ""


KNOWN: tuple[Release, ...] = tuple(Release.parse(text) for text in KNOWN_RELEASES)


def compatibility_window(release: Release) -> int:
    """How many earlier major releases this one accepts (RPCs, state files, database records): two until
    24.05, three from 24.11 (SchedMD's upgrade guide, "Compatibility Window")."""
    return 3 if release.has("three_release_window") else 2


def accepts(newer: Release, older: Release) -> bool:
    """Whether daemons of ``newer`` accept daemons, state and records of ``older`` (same release included)."""
    if older > newer or newer not in KNOWN or older not in KNOWN:
        return False
    return KNOWN.index(newer) - KNOWN.index(older) <= compatibility_window(newer)


def upgrade_path(source: Release, target: Release) -> list[Release]:
    """The releases to install in turn to go from ``source`` to ``target`` with no state lost: each step the
    farthest release that still accepts the one before (empty when source == target)."""
    path: list[Release] = []
    current = source
    while current != target:
        steps = [r for r in KNOWN if current < r <= target and accepts(r, current)]
        if not steps:
            raise ValueError(f"no supported upgrade from {current} towards {target}")
        current = steps[-1]
        path.append(current)
    return path


def autodetect_allowed(release: Release, method: str) -> bool:
    """Whether gres.conf AutoDetect=<method> is accepted by this release."""
    if method in ("off", "nvml"):
        return True
    feature = AUTODETECT_FEATURES.get(method)
    return feature is not None and release.has(feature)


# gres.conf AutoDetect methods that came with a release
AUTODETECT_FEATURES = {"nvidia": "autodetect_nvidia", "full": "autodetect_full"}
