"""The lab's BMC: a container on a lab's network that answers fence_virsh over SSH (root, password) with
lab/bmc/virsh, which powers the lab's containers off and on through the Docker socket. Debian's real
fence_virsh on the controllers logs in to it exactly as it would to a libvirt host.

    python -m lab.bmc [--name=NAME] up NETWORK ADDRESS PASSWORD_FILE DOMAIN...   start it (the password file is
                                                                                 made if absent)
    python -m lab.bmc [--name=NAME] password PASSWORD_FILE                      set root's password to the file's
    python -m lab.bmc [--name=NAME] down                                        remove it

NAME (default gpucluster-lab-bmc) is the BMC container's: labs that run side by side each have their own.

The molecule/production scenario declares its fence devices at this BMC: tests/lab/test_production_lab.py
starts it after the lab's network exists; by hand, run `up` after `molecule create -s production`."""

from __future__ import annotations

import os
import secrets
import string
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

NAME = "gpucluster-lab-bmc"
SHIM = Path(__file__).resolve().parent / "bmc" / "virsh"
SSHD = "PermitRootLogin yes\nPasswordAuthentication yes\nKbdInteractiveAuthentication no\nUsePAM yes\n"


def _docker(*args: str, stdin: str | None = None, timeout: int = 300) -> str:
    result = subprocess.run(
        ["docker", *args], input=stdin, capture_output=True, text=True, timeout=timeout, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args[:3])}: rc={result.returncode}\n{result.stdout}\n{result.stderr}")
    return result.stdout.strip()


def _exec(command: str, stdin: str | None = None, timeout: int = 300, name: str = NAME) -> str:
    return _docker("exec", "-i", name, "bash", "-c", command, stdin=stdin, timeout=timeout)


def password(password_file: Path) -> str:
    """The BMC's root password from ``password_file`` (a new random one written there if it has none)."""
    if not password_file.is_file() or not password_file.read_text(encoding="utf-8").strip():
        password_file.parent.mkdir(parents=True, exist_ok=True)
        alphabet = string.ascii_letters + string.digits
        password_file.write_text("".join(secrets.choice(alphabet) for _ in range(24)) + "\n", encoding="utf-8")
        password_file.chmod(0o600)
    return password_file.read_text(encoding="utf-8").split()[0]


def set_password(password_file: Path, name: str = NAME) -> None:
    _exec("chpasswd", stdin=f"root:{password(password_file)}\n", name=name)


def up(network: str, address: str, secret: Path, domains: Sequence[str], *, image: str, name: str = NAME) -> None:
    """The BMC container ``name`` at ``address`` of ``network``, sshd running, allowed to power ``domains``, root's
    password the one in the file ``secret``."""
    down(name)
    _docker(
        "run", "-d", "--name", name, "--hostname", "lab-bmc", "--network", network, "--ip", address,
        "-v", "/var/run/docker.sock:/var/run/docker.sock", "--entrypoint", "sleep", image, "infinity",
    )  # fmt: skip
    _exec(
        "apt-get update -qq -o Acquire::Retries=3 >/dev/null && DEBIAN_FRONTEND=noninteractive "
        "apt-get install -y -qq --no-install-recommends openssh-server >/dev/null",
        timeout=600,
        name=name,
    )
    _docker("cp", str(SHIM), f"{name}:/usr/local/bin/virsh")
    _exec("mkdir -p /etc/lab-bmc /run/sshd && cat > /etc/lab-bmc/domains", stdin="\n".join(domains) + "\n", name=name)
    _exec("cat > /etc/ssh/sshd_config.d/lab-bmc.conf", stdin=SSHD, name=name)
    set_password(secret, name)
    _exec("chmod 0755 /usr/local/bin/virsh && ssh-keygen -A >/dev/null && /usr/sbin/sshd", name=name)


def down(name: str = NAME) -> None:
    subprocess.run(["docker", "rm", "-f", name], capture_output=True, check=False)


def actions(name: str = NAME) -> list[tuple[float, float, str]]:
    """What the BMC did, oldest first: (epoch seconds, monotonic seconds, 'destroy prod-ctl01'); the monotonic
    clock is the kernel's, which the lab's containers share (systemd's *TimestampMonotonic)."""
    out = subprocess.run(
        ["docker", "exec", name, "cat", "/var/log/lab-bmc.log"], capture_output=True, text=True, check=False
    ).stdout
    found = []
    for line in out.splitlines():
        epoch, monotonic, action = line.split(" ", 2)
        found.append((float(epoch), float(monotonic), action))
    return found


def main(argv: list[str]) -> int:
    name = NAME
    if argv[:1] and argv[0].startswith("--name="):
        name, argv = argv[0].removeprefix("--name="), argv[1:]
    if argv[:1] == ["up"] and len(argv) >= 5:
        image = f"gpucluster/lab:{os.environ.get('GPUCLUSTER_LAB_SUITE', 'trixie')}"
        up(argv[1], argv[2], Path(argv[3]), argv[4:], image=image, name=name)
    elif argv[:1] == ["password"] and len(argv) == 2:
        set_password(Path(argv[1]), name)
    elif argv == ["down"]:
        down(name)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
