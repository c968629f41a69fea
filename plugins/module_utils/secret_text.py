"""Secrets written into configuration files whose readers give some characters a meaning.

A password from a site's Vault may hold any character; the file it lands in may not carry each one as it is:

- slurmdbd.conf (``StoragePass``), read by Slurm's parser (src/common/parse_config.c, the same in 22.05 to
  26.05): an unescaped ``#`` starts a comment, a backslash escapes the next character, and a value holding
  whitespace must stand between double quotes, which it then cannot hold itself. ``slurm_conf_value`` writes what
  the parser reads back unchanged; ``slurm_conf_secret_errors`` names what it cannot carry at all.
- MariaDB's option files (``wsrep_sst_auth``, read by mariadbd and by the SST script through my_print_defaults)
  and keepalived.conf (``auth_pass``): comments, quotes, escapes and whitespace of their own, so the characters
  with a meaning there are refused (``plain_secret_errors``) rather than escaped for each reader.

Messages name the variable, never its value.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SPACE = re.compile(r"\s")

# What a MariaDB option file and keepalived.conf read as syntax inside a value.
OPTION_FILE = {"#": "'#' (a comment)", '"': "a double quote", "'": "a single quote", "\\": "a backslash (an escape)"}
KEEPALIVED = {**OPTION_FILE, "!": "'!' (a comment)"}


# The shortest database password the roles take (their runtime asserts say the same).
MIN_LENGTH = 12


def short_secret_errors(name: str, value: str) -> list[str]:
    """A secret given but shorter than MIN_LENGTH (an unset one is the argument specs' or the caller's to name)."""
    if 0 < len(value) < MIN_LENGTH:
        return [f"{name} is shorter than {MIN_LENGTH} characters; give a longer one (Ansible Vault)"]
    return []


def slurm_conf_value(value: str) -> str:
    """``value`` as a Slurm configuration file must hold it to be read back unchanged: backslashes and ``#``
    escaped, and between double quotes where it holds whitespace (slurm_conf_secret_errors refuses what cannot be
    written at all)."""
    text = str(value).replace("\\", "\\\\").replace("#", "\\#")
    return f'"{text}"' if _SPACE.search(str(value)) else text


def slurm_conf_secret_errors(name: str, value: str, where: str) -> list[str]:
    """What Slurm's parser cannot read back from ``where`` (a file and key, e.g. "slurmdbd.conf's StoragePass"): a
    control character (the file is read line by line), or a double quote at the start of the value or beside
    whitespace (such a value stands between double quotes, which end it)."""
    text = str(value)
    if _CONTROL.search(text):
        return [
            f"{name} holds a control character (a newline, a tab): {where} is read line by line and would not hold "
            "it; choose a password of printable characters"
        ]
    if text.startswith('"') or ('"' in text and _SPACE.search(text)):
        return [
            f"{name} holds a double quote at its start or beside a space: {where} holds such a value between double "
            "quotes, which would end it there and give the daemon another password; choose one without them"
        ]
    return []


def plain_secret_errors(
    name: str, value: str, where: str, syntax: dict[str, str], example: str = "openssl rand -base64 24"
) -> list[str]:
    """The characters of ``value`` that ``where`` reads as its own syntax (``syntax``: character -> what it is
    there), whitespace and control characters included: the daemon would read another password than the one the
    inventory gives - or none. ``example``: a command that makes a password the file takes."""
    text = str(value)
    said = [what for char, what in syntax.items() if char in text]
    if _SPACE.search(text):
        said.append("whitespace")
    if _CONTROL.search(text.replace(" ", "").replace("\t", "").replace("\n", "")):
        said.append("a control character")
    if not said:
        return []
    return [
        f"{name} holds {', '.join(said)}, which {where} reads as its own syntax: the daemon would read another "
        f"password; choose one of letters, digits and other punctuation (e.g. `{example}`)"
    ]
