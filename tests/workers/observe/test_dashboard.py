"""The provisioned Grafana dashboard reads only metrics the node exports, and shows every one;
the provisioning files and the scrape config agree with it and with `node start`."""
import json
from pathlib import Path

import pytest
import yaml
from promql_names import family_of, metric_names

from workers.node.observe.metrics import exported_families

OPS = Path(__file__).resolve().parents[3] / "ops"
DASHBOARD = OPS / "grafana" / "dashboards" / "decentrl.json"


def expressions():
    panels = json.loads(DASHBOARD.read_text())["panels"]
    return [(p["title"], t["expr"]) for p in panels if p["type"] != "row" for t in p["targets"]]


def test_the_parser_finds_metric_names_and_nothing_else():
    expr = ('histogram_quantile(0.95, sum by (le, role) (rate(decentrl_x_bucket{role="a",b=~"c|d"}[5m]))) '
            '/ ignoring(role) group_left sum without (fn) (decentrl_y_total offset 5m) > bool 2 and time() - z')
    assert metric_names(expr) == {"decentrl_x_bucket", "decentrl_y_total", "z"}
    families = {"decentrl_x": "histogram", "decentrl_y": "counter", "g": "gauge"}
    assert family_of("decentrl_x_bucket", families) == "decentrl_x"
    assert family_of("decentrl_y_total", families) == "decentrl_y"
    assert family_of("decentrl_y", families) is None  # a counter is read as _total
    assert family_of("g", families) == "g" and family_of("g_total", families) is None


def test_every_panel_reads_exported_metrics_and_every_metric_has_a_panel():
    families = exported_families()
    assert len(families) >= 20
    used = set()
    for title, expr in expressions():
        names = metric_names(expr)
        assert names, f"panel {title!r}: no metric in {expr!r}"
        for name in names:
            family = family_of(name, families)
            assert family, f"panel {title!r} reads {name}, which the node does not export"
            used.add(family)
    assert set(families) - used == set(), "exported but on no panel"


def test_panels_use_the_provisioned_datasource():
    sources = yaml.safe_load((OPS / "grafana" / "provisioning" / "datasources" / "decentrl.yaml").read_text())
    uid = sources["datasources"][0]["uid"]
    dashboard = json.loads(DASHBOARD.read_text())
    for panel in dashboard["panels"]:
        if panel["type"] != "row":
            assert panel["datasource"]["uid"] == uid
            assert all(t["datasource"]["uid"] == uid for t in panel["targets"])
    assert len({p["id"] for p in dashboard["panels"]}) == len(dashboard["panels"])
    providers = yaml.safe_load((OPS / "grafana" / "provisioning" / "dashboards" / "decentrl.yaml").read_text())
    assert providers["providers"][0]["type"] == "file"


def test_the_scrape_config_targets_the_default_metrics_port():
    from workers.cli.node import node_start

    default = next(p.default for p in node_start.params if p.name == "metrics_port")
    config = yaml.safe_load((OPS / "prometheus.yml").read_text())
    job = config["scrape_configs"][0]
    assert job["metrics_path"] == "/metrics"
    assert job["static_configs"][0]["targets"] == [f"127.0.0.1:{default}"]


@pytest.mark.parametrize("kind", ["counter", "gauge", "histogram", "summary"])
def test_every_metric_kind_is_exported(kind):
    assert kind in exported_families().values()
