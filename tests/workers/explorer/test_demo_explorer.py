"""`decentrl demo --explorer PORT`: the demo's own chain and store served by the explorer from the
start (its network set up for real: anvil, Redis, store, six staked nodes), the task submitted,
then everything, the explorer too, stops. (The page on a finished run: test_real_run.py.)"""
import json
import urllib.error
import urllib.request

import pytest

from workers.demo import run as demo_run
from workers.localnet.chain import free_port


def get(url):
    with urllib.request.urlopen(url, timeout=30) as answer:
        return json.loads(answer.read())


def test_demo_serves_the_explorer(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(demo_run, "ANVIL_PORTS", range(8845, 8850))
    demo = demo_run.Demo(tmp_path / "out", keep=False)
    try:
        demo.start_network()
        port = free_port(range(8865, 8870), fallback=False)
        demo.start_explorer(port)
        url = demo.explorer.url
        assert url == f"http://127.0.0.1:{port}/"
        net = get(url + "api/network")
        assert net["registry"] == demo.dep.addresses["TaskRegistry"] and net["tasks"] == []
        assert {n["address"] for n in net["nodes"]} == {n.address for n in demo.nodes}
        demo.submit()
        task = get(url + f"api/tasks/{demo.task_id}")
        assert task["requester"] == demo.requester.address and task["gas_by_kind"][0]["kind"] == "createTaskWithSig"
    finally:
        demo.stop()
    assert demo.explorer is None
    with pytest.raises(urllib.error.URLError):
        get(url + "api/network")
    assert f"explorer  {url}" in capsys.readouterr().out
