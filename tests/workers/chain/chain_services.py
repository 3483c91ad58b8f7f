"""The chain-layer tests' ports (an anvil's, an embedded Redis's) and helpers."""

from pathlib import Path

from workers.localnet.chain import TOKEN, fund, http_w3  # noqa: F401  (the suite's helpers)

ROOT = Path(__file__).resolve().parents[3]
ANVIL_PORTS = range(8631, 8640)
REDIS_PORTS = range(16391, 16400)


def send_from_threads(http_url: str, redis_url: str, key: bytes, threads: int, per_thread: int, sink: str):
    """One process of the concurrency test: `threads` threads, each sending `per_thread` value
    transfers through its own process's TxSender for `key`; returns the nonces mined, tx hashes
    and the sender's stats."""
    from concurrent.futures import ThreadPoolExecutor

    import redis as redis_py
    from eth_account import Account

    from workers.chain.sender import TxSender

    sender = TxSender(http_w3(http_url), Account.from_key(key), redis_py.Redis.from_url(redis_url))

    def run(_):
        out = []
        for _ in range(per_thread):
            receipt = sender.send(to=sink, value=1)
            out.append(receipt["transactionHash"].to_0x_hex())
        return out

    with ThreadPoolExecutor(threads) as pool:
        hashes = [h for batch in pool.map(run, range(threads)) for h in batch]
    return hashes, dict(sender.stats)
