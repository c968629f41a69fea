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


@dataclass(frozen=True, slots=True)
class Release:
    """A Slurm major release such as 24.11."""

    year: int
    month: int

    @classmethod
    def parse(cls, text: str) -> Release:
        year, _, month = text.partition(".")
        return cls(int(year), int(month))

    def __str__(self) -> str:
        return f"{self.year:02d}.{self.month:02d}"

    def at_least(self, text: str) -> bool:
        other = Release.parse(text)
        return (self.year, self.month) >= (other.year, other.month)

    # Feature gates, each with the release that introduced (or removed) it.
    @property
    def topology_block(self) -> bool:
        """topology/block (NVLink domains) exists from 23.11."""
        return self.at_least("23.11")

    @property
    def topology_yaml(self) -> bool:
        """topology.yaml, several topologies at once, read before topology.conf from 25.05."""
        return self.at_least("25.05")

    @property
    def folds_suffixed_names(self) -> bool:
        """A host range with text after it (NodeName=gpu[01-02]-ib) in node lines: 22.05's slurmctld stops on it
        ("Unable to create NodeAddr list"), 24.11 and 26.05 read it; the releases between are not tested here."""
        return self.at_least("24.11")

    @property
    def autodetect_nvidia(self) -> bool:
        """gres.conf AutoDetect=nvidia (no NVML library needed) from 24.11."""
        return self.at_least("24.11")

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

    @property
    def autodetect_full(self) -> bool:
        """gres.conf AutoDetect=full (try every method) from 26.05."""
        return self.at_least("26.05")


def compatibility_window(release: Release) -> int:
    """How many earlier major releases this one accepts (RPCs, state files, database records): two until
    24.05, three from 24.11 (SchedMD's upgrade guide, "Compatibility Window")."""
    return 3 if release.at_least("24.11") else 2


def accepts(newer: Release, older: Release) -> bool:
    """Whether daemons of ``newer`` accept daemons, state and records of ``older`` (same release included)."""
    if (older.year, older.month) > (newer.year, newer.month):
        return False
    known = [Release.parse(text) for text in KNOWN_RELEASES]
    if newer not in known or older not in known:
        return False
    return known.index(newer) - known.index(older) <= compatibility_window(newer)


def upgrade_path(source: Release, target: Release) -> list[Release]:
    """The releases to install in turn to go from ``source`` to ``target`` with no state lost: each step the
    farthest release that still accepts the one before (empty when source == target)."""
    known = [Release.parse(text) for text in KNOWN_RELEASES]
    path: list[Release] = []
    current = source
    while current != target:
        start, end = (current.year, current.month), (target.year, target.month)
        steps = [r for r in known if start < (r.year, r.month) <= end and accepts(r, current)]
        if not steps:
            raise ValueError(f"no supported upgrade from {current} towards {target}")
        current = steps[-1]
        path.append(current)
    return path


def autodetect_allowed(release: Release, method: str) -> bool:
    """Whether gres.conf AutoDetect=<method> is accepted by this release."""
    if method in ("off", "nvml"):
        return True
    if method == "nvidia":
        return release.autodetect_nvidia
    if method == "full":
        return release.autodetect_full
    return False
