"""A site's local Debian mirror and Python package index, in small, for the pilot lab: the packages a role
installs from a repository of its own (Apptainer, which Debian 13 does not package) copied from Debian's archive
into a signed repository, as a site mirrors them with aptly or reprepro, and a PEP 503 index holding a wheel that
exists nowhere else (so that a pip install of it shows the site's index was asked); both served over HTTP from the
lab's storage host (molecule/pilot/prepare.yml).

The repository is built in a container of the lab's Debian unstable image: the packages downloaded with apt from
unstable, Packages and Release written by apt-ftparchive (Codename sid, Suite unstable, as Debian's), the Release
signed with a key made for this mirror (OpenPGP, ed25519), whose public half the lab inventory gives the role as
the repository's signed_by. Built once per machine and version of this file (lab/cache.py): a mirror directory that
holds InRelease and the key is kept - across clones, as the converged labs that trust its key are (lab/snapshot.py).

    python -m lab.local_mirror DIR      build the mirror in DIR (if not built) and print DIR
"""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
import zipfile
from pathlib import Path

from lab.cache import CACHE, source_hash

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DIR = CACHE / f"mirror-{source_hash(Path(__file__))}"
# The packages the mirror carries (their dependencies come from the hosts' own Debian release).
PACKAGES = ("apptainer",)
IMAGE = "gpucluster/lab:sid"
KEY = "archive-key.asc"
# The signed Release: a mirror directory with it holds the Debian repository.
IN_RELEASE = Path("debian", "dists", "sid", "InRelease")
# The one project of the package index: a module that says where it came from.
PROBE = "gpucluster-lab-probe"
PROBE_WHEEL = "gpucluster_lab_probe-1.0-py3-none-any.whl"
PROBE_MODULE = 'SOURCE = "the site\'s package index"\n'

# Runs in the unstable image as root, the mirror directory mounted on /out.
BUILD = r"""
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive GNUPGHOME=$(mktemp -d)
apt-get update -qq
apt-get install -y -qq --no-install-recommends apt-utils gnupg >/dev/null
work=$(mktemp -d)
mkdir -p "$work/debian/pool/main" "$work/debian/dists/sid/main/binary-amd64"
(cd "$work/debian/pool/main" && apt-get download -q "$@")
cd "$work/debian"
apt-ftparchive packages pool > dists/sid/main/binary-amd64/Packages
gzip -9 -k dists/sid/main/binary-amd64/Packages
apt-ftparchive \
  -o APT::FTPArchive::Release::Origin=gpucluster-lab -o "APT::FTPArchive::Release::Label=gpucluster lab mirror" \
  -o APT::FTPArchive::Release::Suite=unstable -o APT::FTPArchive::Release::Codename=sid \
  -o APT::FTPArchive::Release::Architectures=amd64 -o APT::FTPArchive::Release::Components=main \
  release dists/sid > "$work/Release"
mv "$work/Release" dists/sid/Release
gpg --batch --quiet --passphrase '' \
  --quick-gen-key 'gpucluster lab mirror <lab-mirror@gpucluster.invalid>' ed25519 sign 1y
gpg --batch --quiet --clearsign -o dists/sid/InRelease dists/sid/Release
gpg --batch --quiet --armor --export > "$work/archive-key.asc"
# The key before the repository: a directory with both is a finished mirror.
cp -r "$work/debian" /out/
cp "$work/archive-key.asc" /out/
"""


def built(directory: Path) -> bool:
    return (
        (directory / KEY).is_file()
        and (directory / IN_RELEASE).is_file()
        and (directory / "pypi" / "simple" / PROBE / "index.html").is_file()
    )


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).decode().rstrip("=")


def write_index(directory: Path) -> None:
    """The PEP 503 index under directory/pypi: simple/<project>/ links the wheel, with its SHA-256."""
    files = {
        "gpucluster_lab_probe.py": PROBE_MODULE.encode(),
        "gpucluster_lab_probe-1.0.dist-info/METADATA": (
            f"Metadata-Version: 2.1\nName: {PROBE}\nVersion: 1.0\nSummary: The pilot lab's package index probe\n"
        ).encode(),
        "gpucluster_lab_probe-1.0.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: gpucluster-lab\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data in files.items())
    record += "gpucluster_lab_probe-1.0.dist-info/RECORD,,\n"
    files["gpucluster_lab_probe-1.0.dist-info/RECORD"] = record.encode()
    packages = directory / "pypi" / "packages"
    packages.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(packages / PROBE_WHEEL, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            wheel.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data)
    digest = hashlib.sha256((packages / PROBE_WHEEL).read_bytes()).hexdigest()
    project = directory / "pypi" / "simple" / PROBE
    project.mkdir(parents=True, exist_ok=True)
    link = f'<a href="../../packages/{PROBE_WHEEL}#sha256={digest}">{PROBE_WHEEL}</a>'
    (project / "index.html").write_text(f"<!DOCTYPE html>\n<html><body>\n{link}\n</body></html>\n")
    root = f'<a href="{PROBE}/">{PROBE}</a>'
    page = f"<!DOCTYPE html>\n<html><body>\n{root}\n</body></html>\n"
    (directory / "pypi" / "simple" / "index.html").write_text(page)


def build(directory: Path = DEFAULT_DIR) -> Path:
    """The mirror in ``directory`` (built unless it is there); raises with the container's output if it fails."""
    if built(directory):
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    if not (directory / IN_RELEASE).is_file():
        mount = f"{directory.resolve()}:/out"
        result = subprocess.run(
            ["docker", "run", "--rm", "-v", mount, IMAGE, "bash", "-c", BUILD, "build", *PACKAGES],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"the lab's local mirror was not built: {result.stdout[-2000:]}{result.stderr[-3000:]}")
    write_index(directory)
    if not built(directory):
        raise RuntimeError(f"the lab's local mirror in {directory} is incomplete")
    return directory


def main(argv: list[str]) -> int:
    directory = Path(argv[1]) if len(argv) > 1 else DEFAULT_DIR
    print(build(directory))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
