"""tools/port_free.py, which `make test` runs for brownie's port 8545 first: a taken port is an
error naming the process that holds it; a free one passes."""
import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def port_free(port: int) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "tools" / "port_free.py"), str(port), "stop it first"],
                          capture_output=True, text=True, timeout=60)


def test_a_taken_port_names_its_holder_and_a_free_one_passes():
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        taken = port_free(port)
    assert taken.returncode == 1
    assert taken.stderr.startswith(f"port {port} is already in use (pid {os.getpid()}: ")
    assert taken.stderr.rstrip().endswith("): stop it first")
    free = port_free(port)
    assert (free.returncode, free.stderr) == (0, "")
