"""Pass-through settings checked against what the release really accepts (slurm_release_data.py, read from
Debian's packages): slurmctld stops at a key it does not know ("Parsing error at unrecognized key") and at a
plugin its release does not ship (select/cons_res on 24.11), so both are refused before any host is touched,
naming the release that has them. Releases without data (vendor builds of 23.02 ... 25.11) are checked against
every release in scope together: only a key no release knows is refused there."""

from __future__ import annotations

import difflib
from functools import lru_cache

from .slurm_release_data import RELEASE_DATA

# What each kind of line is called in messages.
LABELS = {"slurm.conf": "slurm.conf key", "partition": "partition option"}
# slurm.conf keys whose values name plugins of the basic plugin package (plugins of optional packages - auth/jwt,
# jobcomp/elasticsearch, mpi/pmix - are not in the lab images, so their keys are not checked).
PLUGIN_KEYS = frozenset(
    {
        "selecttype",
        "proctracktype",
        "taskplugin",
        "prioritytype",
        "schedulertype",
        "topologyplugin",
        "switchtype",
        "preempttype",
        "jobacctgathertype",
        "jobcontainertype",
        "credtype",
    }
)


@lru_cache(maxsize=64)
def _keys(release: str, kind: str) -> frozenset[str]:
    data = RELEASE_DATA[release]
    names = list(data.get(kind, []))  # type: ignore[call-overload]
    if kind == "slurm.conf":
        names += list(data.get("slurm.conf undocumented", []))  # type: ignore[call-overload]
    return frozenset(name.lower() for name in names)


def _documented(release: str, kind: str) -> list[str]:
    releases = [release] if release in RELEASE_DATA else list(RELEASE_DATA)
    return sorted({name for r in releases for name in RELEASE_DATA[r].get(kind, [])})  # type: ignore[attr-defined]


def key_error(where: str, key: str, kind: str, release: str) -> str:
    """Why ``key`` cannot be a ``kind`` key ('slurm.conf' or 'partition') of ``release``; '' when it can."""
    having = [r for r in RELEASE_DATA if key.lower() in _keys(r, kind)]
    if release in having or (release not in RELEASE_DATA and having):
        return ""
    label = LABELS[kind]
    if having:
        return (
            f"{where}: Slurm {release} has no {label} {key} (Slurm {', '.join(having)} has it), and slurmctld stops "
            "at a key it does not know; remove it or set the release that has it"
        )
    close = difflib.get_close_matches(key, _documented(release, kind), n=1, cutoff=0.7)
    hint = f"did you mean {close[0]}? " if close else ""
    return (
        f"{where}: {key} is not a {label} of Slurm {release} (slurmctld stops with 'Parsing error at unrecognized "
        f"key'); {hint}see {'slurm.conf(5)' if kind == 'slurm.conf' else 'PARTITION CONFIGURATION in slurm.conf(5)'}"
    )


def plugin_errors(where: str, key: str, value: object, release: str) -> list[str]:
    """Plugins named by a plugin key's value that ``release`` does not ship."""
    if key.lower() not in PLUGIN_KEYS or release not in RELEASE_DATA:
        return []
    errors = []
    for item in str(value).split(","):
        plugin = item.strip()
        name = plugin.replace("/", "_")
        if not plugin or name in RELEASE_DATA[release]["plugins"]:  # type: ignore[operator]
            continue
        having = [r for r, data in RELEASE_DATA.items() if name in data["plugins"]]  # type: ignore[operator]
        found = f"only Slurm {', '.join(having)} ships it" if having else "no release in scope ships it"
        errors.append(
            f"{where}: Slurm {release} has no plugin {plugin} ({found}); slurmctld would not start. Remove it or "
            "name one the release ships"
        )
    return errors
