"""cluster.yaml: valid YAML and a valid Ray cluster-launcher config with head, CPU and GPU groups, each node offering
one unit of the timed-run resource (one timed measurement per node at a time)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from mirtune.cluster import TIMED_RUN_RESOURCE

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def config() -> dict:
    return yaml.safe_load((REPO / "cluster.yaml").read_text())


def test_parses_and_matches_rays_schema(config):
    assert isinstance(config, dict) and config["cluster_name"] == "mirtune"
    jsonschema = pytest.importorskip("jsonschema")
    import ray

    schema = json.loads((Path(ray.__file__).parent / "autoscaler" / "ray-schema.json").read_text())
    jsonschema.validate(config, schema)


def test_groups_and_the_timed_run_resource(config):
    types = config["available_node_types"]
    assert config["head_node_type"] in types
    gpu = [n for n, t in types.items() if t["resources"].get("GPU", 0) >= 1]
    cpu = [n for n, t in types.items() if n != config["head_node_type"] and not t["resources"].get("GPU")]
    assert gpu and cpu
    for name, t in types.items():
        assert t["resources"][TIMED_RUN_RESOURCE] == 1, name
    starts = config["head_start_ray_commands"] + config["worker_start_ray_commands"]
    declared = [c for c in starts if "ray start" in c]
    assert len(declared) == 2 and all(f'"{TIMED_RUN_RESOURCE}": 1' in c for c in declared)
    assert config["max_workers"] >= sum(t["max_workers"] for n, t in types.items() if n != config["head_node_type"])


def test_setup_installs_the_toolchain_and_mirtune(config):
    lists = [config["setup_commands"]] + [t["worker_setup_commands"] for t in config["available_node_types"].values()
                                          if "worker_setup_commands" in t]
    for commands in lists:
        text = "\n".join(commands)
        for package in ("clang-14", "libomp-14-dev", "libtinfo5"):
            assert package in text
        assert "pip install" in text and "-e ~/mirtune" in text
    assert config["file_mounts"]["~/mirtune"] == "."


def test_the_dashboard_is_not_exposed_and_token_auth_stays_on(config):
    """Whoever reaches the dashboard can submit a job (run code): loopback only, reached through SSH, and Ray's
    token authentication on every node (issue 18)."""
    text = (REPO / "cluster.yaml").read_text()
    yaml_only = yaml.safe_dump(config)  # what Ray runs, comments left out
    assert "0.0.0.0" not in yaml_only
    starts = [c for c in config["head_start_ray_commands"] + config["worker_start_ray_commands"] if "ray start" in c]
    head = [c for c in starts if "--head" in c]
    assert len(head) == 1
    hosts = re.findall(r"--dashboard-host[= ](\S+)", head[0])
    assert hosts == ["127.0.0.1"], hosts  # never Ray's own default for ray start --head, nor 0.0.0.0
    for command in starts:  # token authentication on every node, set before `ray start` reads it
        assert re.search(r"(^|[;\s])export RAY_AUTH_MODE=token;.*ray start", command), command
    assert not re.search(r"RAY_AUTH_MODE\s*=\s*['\"]?(disabled|none|off)", text, re.IGNORECASE)
    assert config["file_mounts"]["~/.ray/auth_token"] == "~/.ray/auth_token"  # every node gets the token...
    lists = [config["setup_commands"]] + [t["worker_setup_commands"] for t in config["available_node_types"].values()
                                          if "worker_setup_commands" in t]
    assert all("chmod 600 ~/.ray/auth_token" in commands for commands in lists)  # ...readable by its owner only
    assert "ray dashboard cluster.yaml" in text and "ssh -N -L 8265:127.0.0.1:8265" in text  # how to reach it


def test_jobs_run_with_the_environments_python(config):
    """`ray job submit ... -- python jobs/...` runs `python` from the head's PATH: the venv's bin/ comes first, or the
    job gets the system Python without pyarrow (issue 18)."""
    starts = [c for c in config["head_start_ray_commands"] + config["worker_start_ray_commands"] if "ray start" in c]
    for command in starts:
        assert re.search(r"export PATH=\$HOME/mirtune/\.venv/bin:\$PATH;.*~/mirtune/\.venv/bin/ray start", command)
