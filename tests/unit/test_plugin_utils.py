"""The filters' shared helper: the model, or one Ansible error listing every inventory problem."""

from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError
from ansible_collections.gpucluster.cluster.plugins.filter.cluster import cluster_node_gpus, cluster_user_view
from ansible_collections.gpucluster.cluster.plugins.plugin_utils.cluster import cluster_or_raise

from .factory import valid_groups, valid_spec


def test_valid_inventory_gives_the_model() -> None:
    assert cluster_or_raise(valid_spec(), valid_groups()).controllers == ("ctl01",)


def test_every_filter_reports_all_problems_at_once() -> None:
    spec = valid_spec()
    spec["name"] = "Bad Name"
    spec["controller_addresses"] = {"ctl01": "not-an-ip"}
    for call in (cluster_or_raise, cluster_user_view, cluster_node_gpus):
        with pytest.raises(AnsibleFilterError) as caught:
            call(spec, valid_groups())
        message = str(caught.value)
        assert message.startswith("invalid cluster inventory:")
        assert "'not-an-ip' is not an IP address" in message and "cluster_name" in message
