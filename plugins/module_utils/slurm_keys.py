"""Pass-through settings checked against what the release really accepts (slurm_release_data.py, read from
Debian's packages): slurmctld stops at a key it does not know ("Parsing error at unrecognized key") and at a
plugin its release does not ship (select/cons_res on 24.11), so both are refused before any host is touched,
naming the release that has them. Releases without data (vendor builds of 23.02 ... 25.11) are checked against
every release in scope together: only a key no release knows is refused there."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
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


# slurm.conf keys whose value is a comma-separated list of options the daemons look for by name (xstrcasestr): an
# option none of them knows is passed over without a word, so a misspelt one (bf_contine) is simply not in effect.
# The keys and their documented options per release: RELEASE_DATA's "slurm.conf options" (slurm.conf(5) of Debian's
# packages; scripts/slurm_release_data.py's OPTION_KEYS).
OPTION_KEYS = {
    str(name).lower(): str(name)
    for data in RELEASE_DATA.values()
    for name in data.get("slurm.conf options", {})  # type: ignore[attr-defined]
}
# Options the daemons read though slurm.conf(5) does not list them under their key: older names kept for
# compatibility, the builtin scheduler's and the power plugin's own (read from Slurm's source of 22.05.8, 24.11.5 and
# 26.05.3: each a string the code looks for in that key's value).
UNDOCUMENTED_OPTIONS = {
    "schedulerparameters": frozenset(
        {
            "balance_interval",
            "bf_yield_rpc_count",
            "cap_watts",
            "capmc_path",
            "decrease_rate",
            "disable_hetero_steps",
            "get_timeout",
            "increase_rate",
            "interval",
            "job_level",
            "job_no_level",
            "jobs_per_user_per_hour",
            "lower_threshold",
            "max_rpc_count",
            "permit_job_expansion",
            "preempt_reorder_count",
            "preempt_strict_order",
            "preempt_youngest_first",
            "recent_job",
            "set_timeout",
            "set_watts",
            "upper_threshold",
            "whole_pack",
        }
    ),
    "slurmctldparameters": frozenset(
        {"cloud_reg_addrs", "enable_rpc_queue", "health_check_report", "preempt_send_user_signal"}
    ),
    "slurmdparameters": frozenset({"config_override"}),
    "communicationparameters": frozenset({"block_zero_hash", "noaddrcache"}),
}
# Options slurmctld stops at (sched/backfill, the default scheduler: "The option is no longer supported"), with the
# option that replaced each.
RETIRED_OPTIONS = {("schedulerparameters", "max_job_bf"): "bf_max_job_test"}


@lru_cache(maxsize=64)
def _options(release: str, key: str) -> frozenset[str] | None:
    """The options of the OPTION_KEYS key ``key`` (lower case) that ``release``'s daemons read, in lower case; None
    where the release's data lists none for it."""
    listed = RELEASE_DATA[release].get("slurm.conf options", {}).get(OPTION_KEYS[key])  # type: ignore[attr-defined]
    if not listed:
        return None
    return frozenset(str(name).lower() for name in listed) | UNDOCUMENTED_OPTIONS.get(key, frozenset())


def option_errors(where: str, key: str, value: object, release: str) -> list[str]:
    """Options in ``value`` (a comma-separated string or a list) of the slurm.conf key ``key`` that ``release``'s
    daemons do not read - they would pass over each without a word -, and retired ones slurmctld stops at. A release
    without data: only what no release in scope reads."""
    name = key.lower()
    if name not in OPTION_KEYS:
        return []
    label = OPTION_KEYS[name]
    items = value if isinstance(value, (list, tuple)) else str(value).split(",")
    releases = [release] if release in RELEASE_DATA else list(RELEASE_DATA)
    errors = []
    for item in items:
        option = str(item).split("=", 1)[0].strip()
        word = option.lower()
        if not option:
            continue
        if (name, word) in RETIRED_OPTIONS:
            errors.append(
                f"{where}: {option} is no longer read - slurmctld stops at it ('The option is no longer supported'); "
                f"use {RETIRED_OPTIONS[name, word]}"
            )
            continue
        known = {r: _options(r, name) for r in RELEASE_DATA}
        if any(known[r] is None or word in known[r] for r in releases):  # type: ignore[operator]
            continue
        having = [r for r, options in known.items() if options is not None and word in options]
        if having:
            errors.append(
                f"{where}: Slurm {release} has no {label} option {option} (Slurm {', '.join(having)} has it), and "
                "Slurm passes over an option it does not know without a word; remove it or set the release that has it"
            )
            continue
        elsewhere = [
            OPTION_KEYS[other]
            for other in OPTION_KEYS
            if other != name and any(word in (_options(r, other) or ()) for r in releases)
        ]
        if elsewhere:
            errors.append(
                f"{where}: {option} is a {' and '.join(elsewhere)} option in Slurm {release}, not a {label} one: "
                f"Slurm passes over it here without a word; set it in cluster_slurm_config's {elsewhere[0]}"
            )
            continue
        documented = sorted(
            {str(o) for r in releases for o in RELEASE_DATA[r].get("slurm.conf options", {}).get(label, [])}  # type: ignore[attr-defined]
        )
        close = difflib.get_close_matches(option, documented, n=1, cutoff=0.7)
        hint = f"did you mean {close[0]}? " if close else ""
        errors.append(
            f"{where}: {option} is not a {label} option of Slurm {release}: Slurm passes over an option it does not "
            f"know without a word, so it would not be in effect; {hint}see {label} in slurm.conf(5)"
        )
    return errors


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


# PartitionName options by the value slurmctld reads (seen with the real slurmctld of 22.05 and 26.05: "MaxMemPerNode
# value (64G) is not a valid number", then "Unable to process configuration file"): whole numbers, or UNLIMITED /
# INFINITE, with the largest each takes; yes/no words. (The power-saving times take words of their own - SuspendTime=-1,
# NONE - and are left to slurmctld.)
PARTITION_NUMBERS: dict[str, int] = {
    "defmempercpu": 2**64 - 2,
    "defmempernode": 2**64 - 2,
    "gracetime": 2**32 - 2,
    "maxcpuspernode": 2**32 - 2,
    "maxcpuspersocket": 2**32 - 2,
    "maxmempercpu": 2**64 - 2,
    "maxmempernode": 2**64 - 2,
    "minnodes": 2**32 - 2,
    "overtimelimit": 2**16 - 2,
    "priorityjobfactor": 2**16 - 1,
}
PARTITION_BOOLEANS = frozenset(
    {"disablerootjobs", "exclusivetopo", "exclusiveuser", "hidden", "lln", "powerdownonidle", "reqresv", "rootonly"}
)
BOOLEAN_WORDS = frozenset({"yes", "no", "true", "false", "up", "down", "1", "0"})


def partition_value_error(key: str, value: object, release: str = "") -> str:
    """Why slurmctld would not read ``value`` of the PartitionName option ``key``, or '': a form of number the
    release's parser refuses for it (as value_error), more than the largest it takes, a word other than yes/no."""
    parsed = value_error(key, value, release, kind="partition")
    if parsed:
        return parsed
    name, text, form = key.lower(), str(value).strip(), number_form(value)
    if name in PARTITION_NUMBERS and form not in ("unlimited", "infinite"):
        if form in ("", "kilo") and int(text.rstrip("kK")) > PARTITION_NUMBERS[name]:
            return f"{value} is more than {PARTITION_NUMBERS[name]}, the most slurmctld takes; it would not start"
        if form not in ("", "kilo"):
            return (
                f"{value!r} is not a whole number (or UNLIMITED); slurmctld would not start (MiB, seconds or "
                "minutes: no units)"
            )
    if name in PARTITION_BOOLEANS and not (isinstance(value, bool) or text.lower() in BOOLEAN_WORDS):
        return f"{value!r} is not yes or no; slurmctld would not start"
    return ""


def _file_errors(
    variable: str, kind: str, settings: object, release: str, value_error: Callable[[str, object], str]
) -> list[str]:
    """The keys of a mapping written into a ``kind`` file of Slurm (a key of LABELS), each checked against what
    ``release`` knows, then its value by ``value_error`` (key, value -> why the daemon would not read it, or '')."""
    if not isinstance(settings, Mapping):
        return [f"{variable}: {settings!r} is not a mapping of {kind} keys to values"]
    errors = []
    for key, value in settings.items():
        where = f"{variable}.{key}"
        unknown = key_error(where, str(key), kind, release)
        problem = "" if unknown else value_error(str(key), value)
        errors += [unknown] if unknown else [f"{where}: {problem}"] if problem else []
    return errors


def cgroup_errors(config: object, release: str) -> list[str]:
    """What slurmctld and every slurmd would stop on in cgroup.conf (slurm_cgroup_config, seen with the real
    slurmctld: "Could not open/read/parse cgroup.conf"): a key ``release`` does not know, a word where it reads a
    number or yes/no."""
    return _file_errors("slurm_cgroup_config", "cgroup.conf", config, release, _cgroup_value_error)


def _cgroup_value_error(key: str, value: object) -> str:
    text = str(value).strip().lower()
    if key.lower() in CGROUP_NUMBERS and (isinstance(value, bool) or not _number(text)):
        return f"{value!r} is not a number (slurmd stops on it)"
    if key.lower() in CGROUP_BOOLEANS and not (isinstance(value, bool) or text in ("yes", "no", "true", "false")):
        return f"{value!r} is not yes or no (true or false)"
    return ""


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def number_form(value: object) -> str:
    """How a value is written, as the release data names the forms of a number its parser refuses
    (scripts/slurm_release_data.py tried one of each): '' for a whole number."""
    text = str(value).strip()
    if isinstance(value, (bool, list, tuple)):
        return "word"  # written YES/NO or comma-joined
    forms = (
        (r"\d+", ""),
        (r"-\d+(\.\d*)?", "negative"),
        (r"\d*\.\d+|\d+\.", "decimal"),
        (r"\d+[kK]", "kilo"),
        (r"\d+\s*[A-Za-z]+", "unit"),
        (r"(?i)unlimited", "unlimited"),
        (r"(?i)infinite", "infinite"),
    )
    return next((form for pattern, form in forms if re.fullmatch(pattern, text)), "word")


_FORM_HINTS = {
    "word": "a word",
    "negative": "a negative number",
    "decimal": "a decimal number",
    "unit": "a number with a unit (slurm.conf(5) gives each key's unit: seconds, minutes or MiB)",
    "kilo": "a number with k after it",
    "unlimited": "the word UNLIMITED",
    "infinite": "the word INFINITE",
}


@lru_cache(maxsize=16)
def _parsed_values(release: str, kind: str) -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    """What the release's parser was seen to do with ``kind``'s keys, by lower-case key: the number keys with the
    forms each refuses, and the yes/no keys."""
    data = RELEASE_DATA[release]
    numbers = data.get(f"{kind} numbers", {})
    yes_no = data.get(f"{kind} yes/no", ())
    return (
        {str(k).lower(): frozenset(v) for k, v in numbers.items()},  # type: ignore[attr-defined]
        frozenset(str(k).lower() for k in yes_no),  # type: ignore[attr-defined]
    )


def value_error(key: str, value: object, release: str, kind: str = "slurm.conf") -> str:
    """Why the release's parser would stop at ``value`` of ``key`` (a ``kind`` key: slurm.conf's own or a
    partition's option) - a key it reads as a number, in a form it refuses ("is not a valid number", "is less than
    zero"); a yes/no key given another word -, or ''. A release without data: only what every release in scope
    refuses."""
    releases = [release] if release in RELEASE_DATA else list(RELEASE_DATA)
    name = key.lower()
    form = number_form(value)
    if form and all(form in _parsed_values(r, kind)[0].get(name, ()) for r in releases):
        return (
            f"{value!r} is {_FORM_HINTS[form]}, and Slurm {release} reads {key} as a whole number: slurmctld would "
            f'stop at it ("{"is less than zero" if form == "negative" else "is not a valid number"}"); give a whole '
            "number"
        )
    yes_no = all(name in _parsed_values(r, kind)[1] for r in releases)
    if yes_no and not (isinstance(value, bool) or str(value).strip().lower() in BOOLEAN_WORDS):
        return f'{value!r} is not yes or no; slurmctld would stop at it ("is not a valid option")'
    return ""


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
    return _file_errors("accounting_purge", "slurmdbd.conf", purge, release, _purge_value_error)


# The words slurmdbd reads as yes or no in its Archive* switches ("maybe": 'is not a valid option for "ArchiveJobs"',
# and slurmdbd stops: tried on 22.05's and 24.11's).
_SWITCH_WORDS = frozenset({"yes", "no", "true", "false", "1", "0", "up", "down"})


def _purge_value_error(key: str, value: object) -> str:
    name = key.lower()
    if value in (None, "") or isinstance(value, bool):
        return ""
    if name.startswith("archive") and name not in ("archivedir", "archivescript"):
        return (
            "" if str(value).strip().lower() in _SWITCH_WORDS else f"{value!r} is not yes or no (slurmdbd stops on it)"
        )
    if not name.startswith("purge") or _PURGE.match(str(value)):
        return ""
    return (
        f"{value!r} is not a retention slurmdbd reads; give months (12, or 12month), or hours or days with the unit "
        "right after the number (720hours, 30days)"
    )
