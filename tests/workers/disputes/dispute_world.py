"""What the real-network dispute tests share: the contract's least windows, waiting on the chain,
and a disputes-on fraud-matrix network whose nodes run as real processes."""
import time

from fraud_world import FraudNet
from network import NODE_SETTINGS

from workers.localnet.chain import TOKEN, Ticker

WINDOW_S, VOTE_WINDOW_S = 3600, 600  # the contract's least windows
BOND = 100 * TOKEN
TIMEOUT_S = 180


def wait_for(what: str, predicate, timeout: float = TIMEOUT_S):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout:g} s: {what}")
        time.sleep(0.2)


def disputes_net(workdir) -> FraudNet:
    """The fraud matrix's network with the DisputeManager active (pay held for a 1 h dispute
    window, a 10 min vote window) and the integration suite's node settings."""
    return FraudNet(workdir, node_settings=NODE_SETTINGS,
                    disputes={"dispute_window_s": WINDOW_S, "vote_window_s": VOTE_WINDOW_S})


def start_nodes(net, request, names):
    """Starts these nodes and a block ticker (drawJurors needs a block after its seed block),
    stopped before the network."""
    net.start(names=names)
    request.addfinalizer(Ticker(net.w3, 0.5).stop)
    net.wait_ready()
