"""Exit 1, naming who holds it, when a local TCP port is already listened on.

    python tools/port_free.py 8545 "why it must be free"

`make test` runs it for 8545 first: brownie's development network starts its own anvil there, but
attaches to whatever already listens on it (another run's chain, an operator's anvil), and the
suite then runs against that chain and its state."""
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workers.ports import listeners  # noqa: E402


def taken(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def main(port: int, why: str) -> int:
    if not taken(port):
        return 0
    holders = []
    for pid in listeners(port):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            command = "?"
        holders.append(f"pid {pid}: {command[:120]}")
    print(f"port {port} is already in use ({'; '.join(holders) or 'by a process this user cannot see'}): {why}",
          file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "free it first"))
