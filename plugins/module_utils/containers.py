"""Settings of the containers role checked before any host is touched: the lines it writes into oci.conf and
enroot.conf from the inventory (containers_oci_extra, containers_enroot_config).

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
    if settings.get("oci_runtime", "none") != "none" and f"{state_dir}/{{user}}" not in made:
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
        + runtime_dir_errors(settings)
    )
