"""A watcher in its own process, for the kill test: appends each event's key to OUT (flushed
and fsynced before the callback returns), sleeping DELAY seconds per event.

    python watch_process.py DEPLOYMENT_JSON HTTP_URL WS_URL CURSOR_SQLITE OUT DELAY
"""
import os
import sys
import time

from web3 import Web3

from workers.chain.deployment import load_deployment
from workers.chain.watcher import EventWatcher, SqliteCursor


def main(deployment_path, http_url, ws_url, cursor_path, out_path, delay):
    deployment = load_deployment(Web3(Web3.HTTPProvider(http_url)), path=deployment_path)
    out = open(out_path, "a")

    def record(event):
        out.write(event.key + "\n")
        out.flush()
        os.fsync(out.fileno())
        time.sleep(float(delay))

    # The test's events are ProtocolConfig's (setSlashBps).
    EventWatcher(deployment, record, SqliteCursor(cursor_path, "killed"), contracts=("ProtocolConfig",),
                 ws_url=ws_url).run()


if __name__ == "__main__":
    main(*sys.argv[1:])
