"""Settings of the containers role checked before any host is touched: the lines it writes into oci.conf,
enroot.conf and apptainer.conf from the inventory (containers_oci_extra, containers_enroot_config,
containers_apptainer_config), and apptainer.conf rewritten with those settings.

oci.conf holds ``Key="value"`` lines that slurmd parses; enroot.conf holds ``ENROOT_NAME value`` lines that enroot
expands in its shell (``$(id -u)`` is meant to be expanded). A value with a line break would add a line of its own,
a double quote would end oci.conf's value early, and a name enroot does not read is silently ignored: each is
refused naming the key and saying what to write instead."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .model import USER_DIRS

OCI_KEY = re.compile(r"^[A-Z][A-Za-z]+$")
ENROOT_KEY = re.compile(r"^ENROOT_[A-Z0-9_]+$")
# characters that would end a line or a quoted value, or start a comment or a command substitution of its own
OCI_FORBIDDEN = ("\n", "\r", '"')
ENROOT_FORBIDDEN = ("\n", "\r", '"', "'", "`", "\\", "#")
# apptainer.conf: ``key = value`` lines, keys in lower case with spaces (``mount proc``, ``bind path``); a key
# that may repeat (``bind path``) takes a list
APPTAINER_KEY = re.compile(r"^[a-z][a-z0-9_]*( [a-z0-9_]+)*$")
APPTAINER_FORBIDDEN = ("\n", "\r", "#")
# deb822 fields of a repository the role adds (containers_enroot_repository, containers_apptainer_repository)
REPOSITORY_KEYS = frozenset({"name", "uris", "suites", "components", "signed_by", "trusted"})
RELEASE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.+~-]*$")
WORD_BREAKS = re.compile(r"[\s#]")
# archive names that cover the release a Debian host runs (its own codename is checked on the host)
OWN_RELEASES = frozenset({"stable", "oldstable", "oldoldstable", "stable-updates", "stable-security"})


def _value_errors(variable: str, key: str, value: Any, forbidden: tuple[str, ...]) -> list[str]:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return [f"{variable}.{key}: give a string or a number, not {type(value).__name__} {value!r}"]
    found = sorted({repr(char) for char in forbidden if char in str(value)})
    if found:
        return [
            f"{variable}.{key}: {str(value)!r} holds {', '.join(found)}, which would break the line it is written"
            " on; give the value on one line without them"
        ]
    return []


def _settings_errors(
    variable: str, settings: Any, *, example: str, key: re.Pattern[str], key_hint: str, forbidden: tuple[str, ...]
) -> list[str]:
    """A mapping of names ``key`` matches (``key_hint`` says what else a name is) to one-line values."""
    if not isinstance(settings, Mapping):
        return [f"{variable}: give a mapping of {example}, not {settings!r}"]
    errors: list[str] = []
    for name, value in settings.items():
        if not isinstance(name, str) or not key.match(name):
            errors.append(f"{variable}: {name!r} {key_hint}")
            continue
        errors.extend(_value_errors(variable, name, value, forbidden))
    return errors


def oci_extra_errors(extra: Any) -> list[str]:
    """containers_oci_extra: oci.conf names (CamelCase, as oci.conf(5) spells them) to one-line values."""
    return _settings_errors(
        "containers_oci_extra",
        extra,
        example="oci.conf names to values, e.g. {DisableHooks: nvidia},",
        key=OCI_KEY,
        key_hint="is not an oci.conf name; give it as oci.conf(5) spells it, e.g. DisableHooks, EnvExclude,"
        " RunTimeEnvExclude",
        forbidden=OCI_FORBIDDEN,
    )


def enroot_config_errors(config: Any) -> list[str]:
    """containers_enroot_config: enroot's own variable names (ENROOT_*) to one-line values."""
    return _settings_errors(
        "containers_enroot_config",
        config,
        example="enroot settings, e.g. {ENROOT_MAX_PROCESSORS: 32},",
        key=ENROOT_KEY,
        key_hint="is not a setting enroot reads; its settings are named ENROOT_* in capitals (enroot.conf(5)), e.g."
        " ENROOT_MAX_PROCESSORS",
        forbidden=ENROOT_FORBIDDEN,
    )


def apptainer_config_errors(config: Any) -> list[str]:
    """containers_apptainer_config: apptainer.conf keys (as the file spells them, ``mount proc``) to one-line
    values, or to a list of them for a key that repeats (``bind path``)."""
    variable = "containers_apptainer_config"
    if not isinstance(config, Mapping):
        return [f"{variable}: give a mapping of apptainer.conf keys to values, e.g. {{'bind path': ['/scratch']}}"]
    errors: list[str] = []
    for name, value in config.items():
        if not isinstance(name, str) or not APPTAINER_KEY.match(name):
            errors.append(
                f"{variable}: {name!r} is not an apptainer.conf key; give it as apptainer.conf spells it, in lower"
                " case with single spaces, e.g. 'mount proc', 'bind path'"
            )
            continue
        values = value if isinstance(value, list) else [value]
        if not values:
            errors.append(f"{variable}.{name}: an empty list would leave no line; give at least one value")
        for item in values:
            errors.extend(_value_errors(variable, name, item, APPTAINER_FORBIDDEN))
    return errors


def repository_errors(variable: str, repository: Any) -> list[str]:
    """A repository as deb822 fields: {} (the hosts have it already), or at least its uris and suites."""
    if not isinstance(repository, Mapping):
        return [f"{variable}: give the repository's deb822 fields as a mapping ({{uris: ..., suites: ...}}), or {{}}"]
    if not repository:
        return []
    errors = [
        f"{variable}: {key!r} is not a field the role writes; give {', '.join(sorted(REPOSITORY_KEYS))}"
        for key in repository
        if key not in REPOSITORY_KEYS
    ]
    errors += [
        f"{variable}: {key} is missing; a repository needs its uris and suites"
        for key in ("uris", "suites")
        if not repository.get(key)
    ]
    # each a word of the sources file's line (signed_by may be a whole armoured key, which deb822 folds itself)
    for key in ("name", "uris", "suites", "components"):
        value = repository.get(key)
        items = value if isinstance(value, list) else [] if value is None else [value]
        errors += [
            f"{variable}.{key}: {item!r} is not one word; give it without spaces, line breaks or '#'"
            for item in items
            if not isinstance(item, str) or not item or WORD_BREAKS.search(item)
        ]
    return errors


def apt_release_errors(release: Any, repository: Any) -> list[str]:
    """containers_apptainer_apt_release: '' or one release name (a codename such as sid, or an archive name such
    as unstable), for a repository the inventory names."""
    variable = "containers_apptainer_apt_release"
    if release in ("", None):
        return []
    if not isinstance(release, str) or not RELEASE.match(release):
        return [f"{variable}: {release!r} is not a release name; give one word such as sid or unstable, or ''"]
    if release in OWN_RELEASES:
        return [
            f"{variable} is {release}: that name covers the release the hosts run, and pinning it to priority 100"
            " would hold back every package of theirs; give the release the repository carries (sid), or ''"
        ]
    if not repository:
        return [
            f"{variable} is {release}, but containers_apptainer_repository is empty: the pin is for the release of"
            " the repository the role adds; name that repository too, or set the release to ''"
        ]
    return []


def _apptainer_key(line: str) -> str | None:
    """The key of an apptainer.conf line, commented out (``#key = value``) or not; None for prose."""
    match = re.match(r"^\s*#?\s*([a-z][a-z0-9_]*(?: [a-z0-9_]+)*)\s*=", line)
    return match.group(1) if match else None


def apptainer_conf(text: str, config: Mapping[str, Any]) -> str:
    """apptainer.conf ``text`` with the keys of ``config`` set: a key's lines in force (the package's value) give
    way to the inventory's, written where the first of them stood - after the key's last commented-out mention, or
    at the end, where none is in force; comments and every other line are kept. Applying it twice gives the same
    text."""
    wanted = {
        key: [f"{key} = {item}" for item in (value if isinstance(value, list) else [value])]
        for key, value in config.items()
    }
    lines: list[str] = []
    placed: set[str] = set()
    for line in text.splitlines():
        key = _apptainer_key(line)
        if key in wanted and not line.lstrip().startswith("#"):
            if key not in placed:  # the key's first line in force takes the inventory's; its others are dropped
                lines.extend(wanted[key])
                placed.add(key)
            continue
        lines.append(line)
    for key, new in wanted.items():
        if key in placed:
            continue
        mentions = [index for index, line in enumerate(lines) if _apptainer_key(line) == key]
        at = mentions[-1] + 1 if mentions else len(lines)
        lines[at:at] = new
    return "\n".join(lines) + "\n"


def user_dirs(job_scripts: Any) -> tuple[str, ...]:
    """The directories the user-dirs prolog makes (cluster_job_scripts.user_dirs, the model's default unset)."""
    listed = job_scripts.get("user_dirs") if isinstance(job_scripts, Mapping) else None
    if listed is None:
        return USER_DIRS
    return tuple(str(item) for item in listed) if isinstance(listed, list) else ()


def runtime_dir_errors(settings: Mapping[str, Any]) -> list[str]:
    """Each runtime's per-user directory is one the user-dirs prolog makes: its parent is root's, 0711, so the
    runtime (running as the user) cannot make it itself."""
    made = user_dirs(settings.get("job_scripts"))
    errors: list[str] = []
    state_dir = str(settings.get("oci_state_dir", "")).rstrip("/")
    if not re.fullmatch(r"/[^\s,{}]+", state_dir):
        errors.append(
            f"containers_oci_state_dir: {state_dir!r} is not an absolute directory (default /run/slurm-oci); the OCI "
            "runtime keeps each user's state below it"
        )
    elif settings.get("oci_runtime", "none") != "none" and f"{state_dir}/{{user}}" not in made:
        errors.append(
            f"containers_oci_state_dir is {state_dir}: the OCI runtime keeps each user's state in {state_dir}/<user>,"
            f" which the user-dirs prolog must make (its parent is root's, mode 0711); add '{state_dir}/{{user}}' to"
            " cluster_job_scripts.user_dirs"
        )
    config = settings.get("enroot_config")
    defaults = settings.get("enroot_defaults") or {}
    runtime = (config if isinstance(config, Mapping) else {}).get("ENROOT_RUNTIME_PATH")
    runtime = str(defaults.get("ENROOT_RUNTIME_PATH", "") if runtime is None else runtime)
    pattern = runtime.replace("$(id -un)", "{user}").replace("$(id -u)", "{uid}").rstrip("/")
    if settings.get("enroot") and "$" not in pattern and pattern not in made:
        errors.append(
            f"ENROOT_RUNTIME_PATH is {runtime}: enroot keeps each user's runtime files there, which the user-dirs"
            f" prolog must make (its parent is root's, mode 0711); add '{pattern}' to cluster_job_scripts.user_dirs"
        )
    return errors


def containers_errors(settings: Mapping[str, Any]) -> list[str]:
    """Every problem of the containers role's settings (by variable name without the role's prefix)."""
    return (
        oci_extra_errors(settings.get("oci_extra", {}))
        + enroot_config_errors(settings.get("enroot_config", {}))
        + apptainer_config_errors(settings.get("apptainer_config", {}))
        + repository_errors("containers_enroot_repository", settings.get("enroot_repository", {}))
        + repository_errors("containers_apptainer_repository", settings.get("apptainer_repository", {}))
        + apt_release_errors(settings.get("apptainer_apt_release", ""), settings.get("apptainer_repository", {}))
        + runtime_dir_errors(settings)
    )
