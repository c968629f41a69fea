"""Pass-through settings checked against what the release really accepts (slurm_release_data.py, read from
Debian's packages): slurmctld stops at a key it does not know ("Parsing error at unrecognized key") and at a
plugin its release does not ship (select/cons_res on 24.11), so both are refused before any host is touched,
naming the release that has them. Releases without data (vendor builds of 23.02 ... 25.11) are checked against
every release in scope together: only a key no release knows is refused there."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from functools import lru_cache

from .slurm_release_data import RELEASE_DATA

# What each kind of line is called in messages.
LABELS = {
    "slurm.conf": "slurm.conf key",
    "partition": "partition option",
    "cgroup.conf": "cgroup.conf key",
    "slurmdbd.conf": "slurmdbd.conf key",
}
# The daemon that stops at an unknown key of each kind (cgroup.conf: slurmctld and every slurmd), and its manual.
DAEMONS = {"slurm.conf": "slurmctld", "partition": "slurmctld", "cgroup.conf": "slurmctld", "slurmdbd.conf": "slurmdbd"}
MANUALS = {
    "slurm.conf": "slurm.conf(5)",
    "partition": "PARTITION CONFIGURATION in slurm.conf(5)",
    "cgroup.conf": "cgroup.conf(5)",
    "slurmdbd.conf": "slurmdbd.conf(5)",
}
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
    """Why ``key`` cannot be a ``kind`` key (a key of LABELS) of ``release``; '' when it can."""
    having = [r for r in RELEASE_DATA if key.lower() in _keys(r, kind)]
    if release in having or (release not in RELEASE_DATA and having):
        return ""
    label, daemon = LABELS[kind], DAEMONS[kind]
    if having:
        return (
            f"{where}: Slurm {release} has no {label} {key} (Slurm {', '.join(having)} has it), and {daemon} stops "
            "at a key it does not know; remove it or set the release that has it"
        )
    close = difflib.get_close_matches(key, _documented(release, kind), n=1, cutoff=0.7)
    hint = f"did you mean {close[0]}? " if close else ""
    return (
        f"{where}: {key} is not a {label} of Slurm {release} ({daemon} stops with 'Parsing error at unrecognized "
        f"key'); {hint}see {MANUALS[kind]}"
    )


# cgroup.conf keys by the value slurmctld and slurmd read (a word they cannot read stops them, as an unknown key does)
CGROUP_NUMBERS = frozenset(
    {"allowedramspace", "allowedswapspace", "maxrampercent", "maxswappercent", "minramspace", "memoryswappiness"}
)
CGROUP_BOOLEANS = frozenset(
    {
        "constraincores",
        "constraindevices",
        "constrainramspace",
        "constrainswapspace",
        "constrainkmemspace",
        "ignoresystemd",
        "ignoresystemdonfailure",
        "signalchildrenprocesses",
    }
)


def cgroup_errors(config: object, release: str) -> list[str]:
    """What slurmctld and every slurmd would stop on in cgroup.conf (slurm_cgroup_config, seen with the real
    slurmctld: "Could not open/read/parse cgroup.conf"): a key ``release`` does not know, a word where it reads a
    number or yes/no."""
    if not isinstance(config, Mapping):
        return [f"slurm_cgroup_config: {config!r} is not a mapping of cgroup.conf keys to values"]
    errors = []
    for key, value in config.items():
        where = f"slurm_cgroup_config.{key}"
        unknown = key_error(where, str(key), "cgroup.conf", release)
        text = str(value).strip().lower()
        if unknown:
            errors.append(unknown)
        elif str(key).lower() in CGROUP_NUMBERS and (isinstance(value, bool) or not _number(text)):
            errors.append(f"{where}: {value!r} is not a number (slurmd stops on it)")
        elif str(key).lower() in CGROUP_BOOLEANS and not (
            isinstance(value, bool) or text in ("yes", "no", "true", "false")
        ):
            errors.append(f"{where}: {value!r} is not yes or no (true or false)")
    return errors


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


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


# slurmdbd.conf's purge settings take a number of months, or of hours or days with the unit after it (12month, 30days)
_PURGE = re.compile(r"^\d+(hours?|days?|months?)?$", re.IGNORECASE)


def purge_errors(purge: object, release: str) -> list[str]:
    """What slurmdbd would stop on in accounting_purge's lines of slurmdbd.conf: a key ``release`` does not know, a
    Purge*After value that is no number of months (or hours or days: 12month, 30days)."""
    if not isinstance(purge, Mapping):
        return [f"accounting_purge: {purge!r} is not a mapping of slurmdbd.conf keys to values"]
    errors = []
    for key, value in purge.items():
        where = f"accounting_purge.{key}"
        unknown = key_error(where, str(key), "slurmdbd.conf", release)
        if unknown:
            errors.append(unknown)
        elif value not in (None, "") and str(key).lower().startswith("purge") and not _PURGE.match(str(value)):
            errors.append(
                f"{where}: {value!r} is not a retention slurmdbd reads; give months (12, or 12month), or hours or "
                "days with the unit right after the number (720hours, 30days)"
            )
    return errors
