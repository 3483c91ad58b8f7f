"""`decentrl wallet balance/send` against a real anvil with the protocol deployed."""

from cli_support import TOKEN


def test_send_drl_and_eth_moves_exactly_the_amounts(node, invoke, contracts, w3):
    payer_dir, payer = node(drl=1000, eth=10)
    _, payee = node(drl=0, eth=0)
    result = invoke(payer_dir, "wallet", "send", payee, "250.5")
    assert result.exit_code == 0, result.output
    assert contracts.token.functions.balanceOf(payee).call() == 250_500_000_000_000_000_000
    assert contracts.token.functions.balanceOf(payer).call() == 749_500_000_000_000_000_000

    result = invoke(payer_dir, "wallet", "send", payee, "1.25", "--eth")
    assert result.exit_code == 0, result.output
    assert w3.eth.get_balance(payee) == 1_250_000_000_000_000_000

    shown = invoke(payer_dir, "wallet", "balance", payee)
    assert shown.exit_code == 0 and f"{payee}  250.5 DRL, 1.250000 ETH" in shown.output


def test_send_more_than_held_or_to_a_bad_address_is_refused_before_sending(node, invoke, contracts, w3):
    payer_dir, payer = node(drl=10, eth=10)
    nonce = w3.eth.get_transaction_count(payer)
    too_much = invoke(payer_dir, "wallet", "send", payer, "10.01")
    assert too_much.exit_code == 1 and "insufficient funds" in too_much.output and "10 DRL" in too_much.output
    bad = invoke(payer_dir, "wallet", "send", "0x1234", "1")
    assert bad.exit_code == 2 and "not an Ethereum address" in bad.output
    assert w3.eth.get_transaction_count(payer) == nonce
    assert contracts.token.functions.balanceOf(payer).call() == 10 * TOKEN


def test_a_send_without_eth_for_gas_says_so(node, invoke, contracts):
    """An account with DRL but no ETH (a requester whose tasks a relayer submitted) cannot send
    its own transactions: the chain node's refusal is an error that names what is missing."""
    payer_dir, payer = node(drl=10, eth=0)
    result = invoke(payer_dir, "wallet", "send", payer, "1")
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output  # not a traceback
    assert "DRL transfer: the chain node refused it:" in result.output
    assert f"{payer} needs ETH for its gas" in result.output
    assert contracts.token.functions.balanceOf(payer).call() == 10 * TOKEN


def test_ctrl_c_while_a_transaction_is_mined_names_it():
    """Interrupted after the send, the command says which transaction may still be mined (a task
    submitted twice costs two bounties); before the send, Ctrl-C aborts as usual."""
    import click
    import pytest

    from workers.chain.sender import SentTx
    from workers.cli.common import send

    class Interrupted:
        address = "0x" + "ab" * 20

        def __init__(self, at_send):
            self.at_send = at_send

        def send(self, call, wait, **tx):
            if self.at_send:
                raise KeyboardInterrupt
            return SentTx("0x" + "cd" * 32, 7, {}, "createTaskWithSig")

        def wait(self, sent):
            raise KeyboardInterrupt

    with pytest.raises(click.ClickException, match=r"interrupted: createTaskWithSig was sent as 0x(cd){32} \(nonce 7\) "
                                                   r"and may still be mined"):
        send(Interrupted(at_send=False), None, "createTaskWithSig")
    with pytest.raises(KeyboardInterrupt):
        send(Interrupted(at_send=True), None, "createTaskWithSig")


def test_sigterm_ends_a_command_through_its_cleanup(node, anvil, deployment_file, w3):
    """`timeout` or a service manager stopping a command (SIGTERM) while its transaction waits to be
    mined: the embedded Redis it started is stopped, and the transaction is named."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    from cli_support import PASSWORD

    node_dir, payer = node(drl=10, eth=10)
    redis_dir = str((node_dir / "cli" / "redis").resolve())

    def redis_pids():
        """The servers working in the command's Redis folder (redis-server changes its process
        title, not its working directory: its --dir)."""
        pids = []
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and os.readlink(proc / "cwd") == redis_dir:
                    pids.append(int(proc.name))
            except OSError:
                continue
        return pids

    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "DECENTRL_KEYSTORE_PASSWORD": PASSWORD, "PYTHONPATH": str(root)}
    env.pop("REDIS_URL", None)
    w3.provider.make_request("evm_setAutomine", [False])
    try:
        proc = subprocess.Popen([sys.executable, "-m", "workers.cli", "--rpc", anvil.http_url, "--deployment",
                                 str(deployment_file), "--node-dir", str(node_dir), "wallet", "send", payer, "1"],
                                cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 60
        while w3.eth.get_transaction_count(payer, "pending") == 0:  # sent, waiting to be mined
            assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read()
            time.sleep(0.05)
        assert redis_pids()
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    finally:
        w3.provider.make_request("anvil_dropAllTransactions", [])
        w3.provider.make_request("evm_setAutomine", [True])
    assert proc.returncode == 1 and "interrupted: DRL transfer was sent as 0x" in out, out
    assert redis_pids() == []
