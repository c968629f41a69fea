"""Filters of the munge role: the site key checked before any host is touched, and where a run takes the cluster's
key from without splitting the cluster (every host must hold the one key: Slurm's daemons and commands on hosts
with different keys stop authenticating each other - "Protocol authentication error", nodes DOWN, their jobs lost)."""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

# munged refuses a shorter key at start ("Keyfile must be at least 32 bytes": MUNGE 0.5.15 to 0.5.18)
MIN_KEY_BYTES = 32


def munge_key_bytes(key_b64: str) -> bytes:
    """The key a site gives as base64 (``munge_key_b64``), line breaks and blanks left out (``base64`` wraps its
    output at 76 columns), exactly as the secret_file module decodes it; ValueError where it is not base64."""
    try:
        return base64.b64decode("".join(str(key_b64).split()), validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError(str(error)) from error


def _inventory_host(hostvars: Mapping[str, Any], name: str) -> bool:
    """Whether ``name`` is a host of the inventory: Ansible's ``hostvars`` also answers for the implicit localhost (the
    controller, in no group), which is not one."""
    own = hostvars.get(name) if name in hostvars else None
    return isinstance(own, Mapping) and bool(own.get("group_names"))


def munge_key_errors(key_b64: Any, key_host: Any = None, hostvars: Mapping[str, Any] | None = None) -> list[str]:
    """What munged would refuse of the site's key (``munge_key_b64``; empty: the role makes one): text that is not
    base64, or a key under 32 bytes - munged would stop on every host the run gave it to. The key is never shown.
    ``key_host`` (munge_key_host, given with the inventory's ``hostvars``: a name looked up, not a list of 12,800
    walked): the host that makes and keeps the key, which the run must reach."""
    if key_host is not None and hostvars is not None and not _inventory_host(hostvars, str(key_host)):
        return [
            f"munge_key_host: {key_host!r} is not a host of this inventory; the role makes the key there and reads it "
            "back for every other host - name one of the inventory's hosts (default: the first controller)"
        ]
    if not key_b64:
        return []
    try:
        key = munge_key_bytes(str(key_b64))
    except ValueError:
        return [
            "munge_key_b64 is not base64 (the key is not shown); give the key file's bytes as `base64 -w0 "
            "/etc/munge/munge.key` prints them, or leave it empty for a key the role makes"
        ]
    if len(key) < MIN_KEY_BYTES:
        return [
            f"munge_key_b64 decodes to {len(key)} bytes; munged refuses a key under {MIN_KEY_BYTES} bytes and would "
            "stop on every host. Make one with `mungekey --create --keyfile <file>` (1024 bytes) and give `base64 "
            "-w0 <file>`"
        ]
    return []


def munge_reference_host(
    hosts: Sequence[str], play_hosts: Sequence[str], key_host: str, controllers: Sequence[str]
) -> str:
    """The host asked for its key beside the key host: in a run that leaves hosts out (--limit), one of those, whose
    key the run must keep - the key host itself where the run leaves it out, else the first controller left out,
    else the first host left out; in a run over every host, another controller, else another host (where the key
    host has no key - a re-installed first controller - the cluster's key is taken from it instead of making a new
    one); '' where the key host is the only host."""
    inside = set(play_hosts)
    outside = [str(host) for host in hosts if host not in inside]
    order = [key_host, *controllers, *outside] if outside else [*controllers, *hosts]
    pool = set(outside) if outside else {str(host) for host in hosts} - {key_host}
    return next((str(host) for host in order if host in pool), "")


def munge_key_plan(
    key_b64: Any, key_host: str, stats: Mapping[str, Any], reference: str, play_hosts: Sequence[str]
) -> dict[str, Any]:
    """How the run gives its hosts the cluster's key: {source, generate, problems}. ``stats``: host -> the stat
    (sha256) of /etc/munge/munge.key on the key host and on ``reference`` (munge_reference_host), the looped task's
    results by item (C(item_values)).

    - the site's key (``key_b64``): installed as it is; no source;
    - else the key host's key; where the key host has none (a re-installed first controller) but ``reference`` has
      one, that key - a new key would split the cluster in a limited run, and re-key every host in a full one;
    - else (no host has a key: a new cluster) a key made once on the key host.
    A limited run that would give its hosts another key than the host outside it holds is refused: a site key rotated
    with --limit, or a key host that already holds another key than the rest (each fix named)."""
    shas = {
        str(host): str(stat.get("checksum") or "")
        for host, stat in stats.items()
        if isinstance(stat, Mapping) and stat.get("exists")
    }
    key_host_sha, reference_sha = shas.get(key_host, ""), shas.get(reference, "") if reference else ""
    plan: dict[str, Any] = {"source": "", "generate": False, "problems": []}
    if key_b64:
        try:
            installed = hashlib.sha256(munge_key_bytes(str(key_b64))).hexdigest()
        except ValueError:
            plan["problems"] = munge_key_errors(key_b64)
            return plan
    else:
        plan["source"] = key_host if key_host_sha or not reference_sha else reference
        plan["generate"] = not key_host_sha and not reference_sha
        installed = key_host_sha or reference_sha
    if not reference_sha or installed == reference_sha or reference in set(map(str, play_hosts)):
        return plan  # (a run over every host gives each the same key: a split it finds is mended)
    limited = f"this run is limited to {len(play_hosts)} host(s) ({', '.join(sorted(map(str, play_hosts))[:5])}"
    limited += ", ...)" if len(play_hosts) > 5 else ")"
    split = (
        "they would hold another MUNGE key than the hosts left out, and Slurm between them would stop authenticating "
        "(nodes DOWN, their jobs lost)"
    )
    if key_b64:
        fix = "Rotate the key in a run over every host (no --limit), or give munge_key_b64 the key the cluster holds"
        plan["problems"] = [f"munge_key_b64 is not the key {reference} holds, and {limited}: {split}. {fix}"]
    else:
        fix = (
            f"Find which key the cluster's hosts hold: copy it to {key_host} (/etc/munge/munge.key, munge 0400), or "
            "give every host the key host's in a run without --limit"
        )
        plan["problems"] = [
            f"{key_host} (munge_key_host) holds another MUNGE key than {reference}, and {limited}: {split}. {fix}"
        ]
    return plan


class FilterModule:
    def filters(self) -> dict[str, Callable[..., Any]]:
        return {
            "munge_key_errors": munge_key_errors,
            "munge_reference_host": munge_reference_host,
            "munge_key_plan": munge_key_plan,
        }
