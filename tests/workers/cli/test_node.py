"""`decentrl node init/stake/status` against a real anvil with the protocol deployed."""

import json
import stat

from cli_support import PASSWORD, TOKEN

from tests.workers.deployed_chain import account_of
from workers.chain.keystore import find_keystore, load_account
from workers.node.handlers.relay import bls_key, registered_key
from workers.protocol import Role


def test_init_creates_an_encrypted_keystore_with_a_prompted_password(tmp_path, invoke):
    node_dir = tmp_path / "n"
    result = invoke(node_dir, "node", "init", "--scrypt-n", "1024", password=None, input="pw1\npw1\n")
    assert result.exit_code == 0, result.output
    address = account_of(result.output)
    path = node_dir / "keystore" / f"{address}.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    document = json.loads(path.read_text())
    assert document["crypto"]["kdf"] == "scrypt"
    assert "pw1" not in result.output and "pw1" not in path.read_text()


def test_init_prompt_mismatch_creates_nothing(tmp_path, invoke):
    node_dir = tmp_path / "n"
    result = invoke(node_dir, "node", "init", "--scrypt-n", "1024", password=None, input="a\nb\nc\nc\n")
    # click asks again after a mismatch; the second pair matches
    assert result.exit_code == 0, result.output
    assert "do not match" in result.output.lower()
    assert len(list((node_dir / "keystore").glob("0x*.json"))) == 1


def test_an_empty_password_variable_is_an_error_not_a_prompt(tmp_path, invoke, node):
    """A script that set $DECENTRL_KEYSTORE_PASSWORD has nobody to answer a prompt."""
    node_dir = tmp_path / "n"
    for args in (("node", "init", "--scrypt-n", "1024"), ("node", "init", "--import-key", "--scrypt-n", "1024")):
        result = invoke(node_dir, *args, password="", input="0x" + "11" * 32 + "\n")
        assert result.exit_code == 1, result.output
        assert "$DECENTRL_KEYSTORE_PASSWORD is set but empty" in result.output, result.output
        assert "New keystore password" not in result.output  # no prompt
    assert not (node_dir / "keystore").exists() or not list((node_dir / "keystore").iterdir())
    funded_dir, _ = node(drl=5)
    sent = invoke(funded_dir, "wallet", "send", "0x" + "22" * 20, "1", password="")
    assert sent.exit_code == 1 and "$DECENTRL_KEYSTORE_PASSWORD is set but empty" in sent.output, sent.output
    assert "Password for" not in sent.output  # no prompt


def test_import_then_wrong_password_is_a_clear_error(tmp_path, invoke, key, w3):
    node_dir = tmp_path / "n"
    result = invoke(node_dir, "node", "init", "--import-key", "--scrypt-n", "1024", input=key.key.hex() + "\n")
    assert result.exit_code == 0, result.output
    assert account_of(result.output) == key.address
    assert key.key.hex() not in result.output

    again = invoke(node_dir, "node", "init", "--import-key", "--scrypt-n", "1024", input=key.key.hex() + "\n")
    assert again.exit_code == 1 and f"already holds the keystore of {key.address}" in again.output
    other = invoke(node_dir, "node", "init", "--scrypt-n", "1024")  # a new key: one account per folder all the same
    assert other.exit_code == 1 and "give another one a folder of its own" in other.output, other.output
    assert len(list((node_dir / "keystore").glob("0x*.json"))) == 1

    bad = invoke(node_dir, "node", "stake", "--role", "sampler", "--amount", "100", password="not it")
    assert bad.exit_code == 1
    assert f"wrong password for keystore {node_dir / 'keystore' / (key.address + '.json')}" in bad.output


def test_a_keystore_file_that_is_not_one_is_named(node, invoke):
    node_dir, address = node()
    path = node_dir / "keystore" / f"{address}.json"
    for text, message in [("{broken", "is not a keystore file (not JSON"),
                          ('{"address": "x"}', "is not a keystore file")]:
        path.write_text(text)
        result = invoke(node_dir, "wallet", "claim")
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        assert f"keystore {path} {message}" in result.output, result.output


def test_import_refuses_a_malformed_key(tmp_path, invoke):
    result = invoke(tmp_path / "n", "node", "init", "--import-key", input="0x1234\n")
    assert result.exit_code == 1 and "64 hex digits" in result.output
    assert not (tmp_path / "n" / "keystore").exists()


def test_status_without_a_keystore_says_to_init(tmp_path, invoke):
    result = invoke(tmp_path / "empty", "node", "status")
    assert result.exit_code == 1 and "decentrl node init" in result.output


def test_stake_then_status_shows_stakes_and_eligibility_reasons(node, invoke, contracts):
    node_dir, address = node(drl=1000)
    before = invoke(node_dir, "node", "status")
    assert before.exit_code == 0, before.output
    assert f"account     {address}" in before.output
    assert "reputation  70 (threshold 60)" in before.output
    assert "sampler    staked 0 DRL" in before.output
    assert "not eligible: stake too low: 0 DRL available for sampler, 100 DRL required" in before.output
    assert "processes   not running" in before.output

    result = invoke(node_dir, "node", "stake", "--role", "sampler", "--amount", "150")
    assert result.exit_code == 0, result.output
    assert "staked 150 DRL as sampler" in result.output and "eligible for sampler" in result.output
    low = invoke(node_dir, "node", "stake", "--role", "validator", "--amount", "50")
    assert low.exit_code == 0, low.output
    assert ("not eligible for validator yet: stake too low: 50 DRL available for validator, 200 DRL required"
            in low.output)
    # A validator's BLS key is registered with its stake (SPECIFICATION 3.1), once.
    assert "registered the node's BLS key" in low.output
    account = load_account(find_keystore(node_dir), PASSWORD)
    assert registered_key(contracts, address) == (tuple(bls_key(account).pubkey_g2), tuple(bls_key(account).pubkey_g1))
    again = invoke(node_dir, "node", "stake", "--role", "validator", "--amount", "10")
    assert again.exit_code == 0 and "BLS key registered already" in again.output, again.output
    assert registered_key(contracts, address)[0] == tuple(bls_key(account).pubkey_g2)
    assert contracts.stakes.functions.stakeOf(address, 0).call().staked == 150 * TOKEN
    assert contracts.token.functions.balanceOf(address).call() == 790 * TOKEN

    after = invoke(node_dir, "node", "status")
    lines = {line.split()[0]: line for line in after.output.splitlines() if line.startswith("  ")}
    assert "staked 150 DRL" in lines["sampler"] and lines["sampler"].endswith("-> eligible")
    assert "stake too low: 0 DRL available for trainer, 500 DRL required" in lines["trainer"]
    assert "stake too low: 60 DRL available for validator, 200 DRL required" in lines["validator"]
    assert "balance     790 DRL" in after.output


def test_status_shows_a_paused_node_and_low_reputation(node, invoke, contracts, w3):
    node_dir, address = node(drl=300)
    assert invoke(node_dir, "node", "stake", "--role", "validator", "--amount", "200").exit_code == 0
    w3.provider.make_request("anvil_impersonateAccount", [address])
    tx = contracts.stakes.functions.setNodePaused(True).transact({"from": address})
    assert w3.eth.wait_for_transaction_receipt(tx).status == 1
    result = invoke(node_dir, "node", "status")
    assert "paused      yes" in result.output
    assert "validator  staked 200 DRL" in result.output and "node paused" in result.output


def test_stake_errors(node, invoke):
    node_dir, address = node(drl=50)
    poor = invoke(node_dir, "node", "stake", "--role", "trainer", "--amount", "500")
    assert poor.exit_code == 1
    assert f"insufficient funds: {address} holds 50 DRL, staking needs 500 DRL" in poor.output
    bad = invoke(node_dir, "node", "stake", "--role", "trainer", "--amount", "-3")
    assert bad.exit_code == 2 and "positive amount" in bad.output
    word = invoke(node_dir, "node", "stake", "--role", "trainer", "--amount", "lots")
    assert word.exit_code == 2 and "Invalid value for '--amount': 'lots' is not a number of DRL" in word.output


def test_a_fee_cap_under_the_base_fee_sends_nothing_and_says_what_to_change(node, invoke, contracts, monkeypatch):
    node_dir, address = node(drl=500)
    capped = invoke(node_dir, "--max-fee-gwei", "1e-9", "node", "stake", "--role", "sampler", "--amount", "100")
    assert capped.exit_code == 1
    assert "approve not sent: the chain's base fee is " in capped.output
    assert "above this account's fee cap of 1e-09 gwei (--max-fee-gwei / $DECENTRL_MAX_FEE_GWEI): raise the cap, " \
           "or run this again once fees fall" in capped.output
    assert "sent once the base fee falls" not in capped.output  # a node's promise, not a command's
    assert contracts.stakes.functions.availableStake(address, Role.SAMPLER).call() == 0
    monkeypatch.setenv("DECENTRL_MAX_FEE_GWEI", "1e-9")  # the same cap from the environment
    assert "fee cap of 1e-09 gwei" in invoke(node_dir, "node", "stake", "--role", "sampler", "--amount", "100").output
    monkeypatch.setenv("DECENTRL_MAX_FEE_GWEI", "1000")  # room above the base fee: sent
    assert invoke(node_dir, "node", "stake", "--role", "sampler", "--amount", "100").exit_code == 0
    assert contracts.stakes.functions.availableStake(address, Role.SAMPLER).call() == 100 * 10**18
    bad = invoke(node_dir, "--max-fee-gwei", "0", "node", "status")
    assert bad.exit_code == 2 and "--max-fee-gwei" in bad.output
    under_a_wei = invoke(node_dir, "--max-fee-gwei", "1e-10", "node", "status")  # would round to no fee at all
    assert under_a_wei.exit_code == 2 and "--max-fee-gwei" in under_a_wei.output


def test_wrong_network_is_a_clear_error(node, invoke, deployment_file, tmp_path):
    node_dir, _ = node()
    record = json.loads(deployment_file.read_text())
    record["chainId"] = 1
    other = tmp_path / "mainnet.json"
    other.write_text(json.dumps(record))
    result = invoke(node_dir, "node", "status", deployment=other)
    assert result.exit_code == 1
    assert "wrong network: deployment is for chain 1" in result.output and "is chain 31337" in result.output


def test_unreachable_rpc(tmp_path, deployment_file):
    from click.testing import CliRunner

    from workers.cli import cli

    result = CliRunner().invoke(cli, ["--rpc", "http://127.0.0.1:8679", "--deployment", str(deployment_file),
                                      "--node-dir", str(tmp_path), "task", "status", "1"])
    assert result.exit_code == 1 and "cannot reach the RPC at http://127.0.0.1:8679" in result.output


def test_what_an_operator_can_mistype_is_named_not_a_traceback(tmp_path, invoke, node):
    zeros = invoke(tmp_path / "z", "node", "init", "--import-key", input="00" * 32 + "\n")
    assert zeros.exit_code == 1 and "that is not a private key" in zeros.output, zeros.output
    assert not (tmp_path / "z" / "keystore").exists()
    a_file = tmp_path / "a-file"
    a_file.write_text("")
    as_dir = invoke(a_file, "node", "status")
    assert as_dir.exit_code == 2 and "is a file" in as_dir.output, as_dir.output
    node_dir, _ = node()
    bad = invoke(node_dir, "node", "status", "--address", "0x1234")
    assert bad.exit_code == 1 and "'0x1234' is not an Ethereum address" in bad.output, bad.output


def test_status_shows_the_processes_when_the_chain_cannot_be_read(node, invoke, deployment_file):
    """The RPC down is when an operator runs `node status` most: its local part still shows."""
    import json

    from tests.ports import dead_port

    node_dir, address = node()
    (node_dir / "node.json").write_text(json.dumps({"pid": 999_999_999, "roles": ["sampler"], "children": {}}))
    from click.testing import CliRunner

    from workers.cli import cli

    with dead_port() as port:
        result = CliRunner().invoke(cli, ["--rpc", f"http://127.0.0.1:{port}", "--deployment", str(deployment_file),
                                          "--node-dir", str(node_dir), "node", "status"])
    assert result.exit_code == 1, result.output
    assert f"account     {address}" in result.output
    assert "chain       cannot be read: cannot reach the RPC at http://127.0.0.1:" in result.output
    assert "processes   not running" in result.output
    # and why no work arrives, as far as it can be told without the chain
    why = result.output[result.output.index("WHY NO WORK ARRIVES (sampler, trainer, validator):"):].splitlines()[1:]
    assert why[0].startswith(f"  [chain-down] the chain cannot be read (cannot reach the RPC at http://127.0.0.1:{port}")
    assert why[0].endswith("no event reaches the node and it can send nothing; check --rpc and the chain node")
    assert why[1:] == ["  [not-running] the node is not running: `decentrl node start`"]
