"""The lab's BMC: a container on a lab's network that answers fence_virsh over SSH (root, password) with
lab/bmc/virsh, which powers the lab's containers off and on through the Docker socket. Debian's real
fence_virsh on the controllers logs in to it exactly as it would to a libvirt host.

    python -m lab.bmc up NETWORK ADDRESS PASSWORD_FILE DOMAIN...   start it (the password file is made if absent)
    python -m lab.bmc password PASSWORD_FILE                        set root's password to the file's (rotation)
    python -m lab.bmc down                                          remove it

The molecule/production scenario declares its fence devices at this BMC: tests/lab/test_production_lab.py
starts it after the lab's network exists; by hand, run `up` after `molecule create -s production`."""

from __future__ import annotations

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


def _exec(command: str, stdin: str | None = None, timeout: int = 300) -> str:
    return _docker("exec", "-i", NAME, "bash", "-c", command, stdin=stdin, timeout=timeout)


def password(password_file: Path) -> str:
    """The BMC's root password from ``password_file`` (a new random one written there if it has none)."""
    if not password_file.is_file() or not password_file.read_text(encoding="utf-8").strip():
        password_file.parent.mkdir(parents=True, exist_ok=True)
        alphabet = string.ascii_letters + string.digits
        password_file.write_text("".join(secrets.choice(alphabet) for _ in range(24)) + "\n", encoding="utf-8")
        password_file.chmod(0o600)
    return password_file.read_text(encoding="utf-8").split()[0]


def set_password(password_file: Path) -> None:
    _exec("chpasswd", stdin=f"root:{password(password_file)}\n")


def up(network: str, address: str, password_file: Path, domains: Sequence[str], image: str) -> None:
    """The BMC container at ``address`` of ``network``, sshd running, allowed to power ``domains``."""
    down()
    _docker(
        "run", "-d", "--name", NAME, "--hostname", "lab-bmc", "--network", network, "--ip", address,
        "-v", "/var/run/docker.sock:/var/run/docker.sock", "--entrypoint", "sleep", image, "infinity",
    )  # fmt: skip
    _exec(
        "apt-get update -qq -o Acquire::Retries=3 >/dev/null && DEBIAN_FRONTEND=noninteractive "
        "apt-get install -y -qq --no-install-recommends openssh-server >/dev/null",
        timeout=600,
    )
    _docker("cp", str(SHIM), f"{NAME}:/usr/local/bin/virsh")
    _exec("mkdir -p /etc/lab-bmc /run/sshd && cat > /etc/lab-bmc/domains", stdin="\n".join(domains) + "\n")
    _exec("cat > /etc/ssh/sshd_config.d/lab-bmc.conf", stdin=SSHD)
    set_password(password_file)
    _exec("chmod 0755 /usr/local/bin/virsh && ssh-keygen -A >/dev/null && /usr/sbin/sshd")


def down() -> None:
    subprocess.run(["docker", "rm", "-f", NAME], capture_output=True, check=False)


def actions() -> list[tuple[float, float, str]]:
    """What the BMC did, oldest first: (epoch seconds, monotonic seconds, 'destroy prod-ctl01'); the monotonic
    clock is the kernel's, which the lab's containers share (systemd's *TimestampMonotonic)."""
    out = subprocess.run(
        ["docker", "exec", NAME, "cat", "/var/log/lab-bmc.log"], capture_output=True, text=True, check=False
    ).stdout
    found = []
    for line in out.splitlines():
        epoch, monotonic, action = line.split(" ", 2)
        found.append((float(epoch), float(monotonic), action))
    return found


def main(argv: list[str]) -> int:
    if argv[:1] == ["up"] and len(argv) >= 5:
        up(argv[1], argv[2], Path(argv[3]), argv[4:], image="gpucluster/lab:trixie")
    elif argv[:1] == ["password"] and len(argv) == 2:
        set_password(Path(argv[1]))
    elif argv == ["down"]:
        down()
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
