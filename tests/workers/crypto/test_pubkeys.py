"""workers.crypto.pubkeys: a node's public key is recovered from a transaction it signed (legacy
and EIP-1559) and is the key of its address."""

import pytest
from eth_account import Account
from eth_keys import keys

from workers.crypto.pubkeys import public_key_of, public_key_of_raw_tx

TO = "0x5FbDB2315678afecb367f032d93F642f64180aa3"


@pytest.mark.parametrize("tx", [
    dict(nonce=3, gasPrice=10**9, gas=50_000, to=TO, value=1, data=b"\x12", chainId=31337),
    dict(nonce=3, maxFeePerGas=2 * 10**9, maxPriorityFeePerGas=10**9, gas=50_000, to=TO, value=0, data=b"",
         chainId=31337, type=2),
], ids=["legacy-eip155", "eip1559"])
def test_recovers_the_signers_public_key(tx):
    node = Account.create()
    raw = node.sign_transaction(tx).raw_transaction
    public = public_key_of_raw_tx(raw)
    assert public == public_key_of(node.key)
    assert keys.PublicKey(public).to_checksum_address() == node.address


def test_another_signer_gives_another_key():
    a, b = Account.create(), Account.create()
    tx = dict(nonce=0, gasPrice=1, gas=21_000, to=TO, value=0, chainId=1)
    assert public_key_of_raw_tx(a.sign_transaction(tx).raw_transaction) != public_key_of(b.key)
