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
