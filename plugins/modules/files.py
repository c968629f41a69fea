"""Documentation of the files action (it renders on the Ansible controller; files_put runs on the host)."""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: files
short_description: A role's directories and text files on a host, in one task
description:
  - Renders each template (as M(ansible.builtin.template) does, without its C(template_*) and C(ansible_managed)
    variables) and reads each file on the controller, then makes the directories and writes the files that differ
    in one module call on the host (M(gpucluster.cluster.files_put)). A loop of copy or template tasks costs the
    host one module run per file on every run; this costs one.
  - Entries of the O(purge) directories that no file names are removed.
  - Text files only.
version_added: "0.1.0"
author: gpucluster maintainers
options:
  files:
    description:
      - Each C({dest, template | src | content, mode, owner, group, validate}); C(template) and C(src) are found as
        the template and copy modules find them (the role's templates/ and files/, or a path on the controller).
      - C(validate) is a command with C(%s) for the new file's path, run on the host before the file replaces the
        old one (as the copy module's option); where it fails, the file stays as it was and the task fails. Not run
        in check mode.
    type: list
    elements: dict
    default: []
  directories:
    description:
      - Directories to make first, each a path (O(directory_mode), O(owner), O(group)) or C({path, owner, group,
        mode}).
    type: list
    elements: raw
    default: []
  purge:
    description: Directories whose entries not among O(files) are removed.
    type: list
    elements: path
    default: []
  owner:
    description: Owner of every directory and file.
    type: str
    default: root
  group:
    description: Group of every directory and file.
    type: str
    default: root
  mode:
    description: Mode of a file whose entry gives none.
    type: str
    default: "0644"
  directory_mode:
    description: Mode of the directories.
    type: str
    default: "0755"
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
"""

EXAMPLES = r"""
- name: Install the example job scripts
  gpucluster.cluster.files:
    directories: ["{{ user_env_examples_dir }}"]
    files:
      - {dest: "{{ user_env_examples_dir }}/ddp.sbatch", template: examples/ddp.sbatch.j2}
      - {dest: "{{ user_env_examples_dir }}/ddp_train.py", src: examples/ddp_train.py}
    mode: "0755"
"""

RETURN = r"""
written:
  description: The directories made, files written and entries removed (or that would be, in check mode).
  type: list
  elements: str
  returned: always
"""
