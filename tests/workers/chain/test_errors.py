"""workers.chain.errors: revert data from the real contracts decodes to named errors with
typed arguments; retry classification."""

import pytest
from eth_abi import encode
from eth_utils import keccak
from web3.exceptions import ContractLogicError, TimeExhausted, Web3RPCError

from workers.chain.errors import (
    DecodedError,
    DroppedTransaction,
    FeeCapExceeded,
    TxReverted,
    decode_revert,
    is_retryable,
    revert_data_of,
)
from workers.protocol import Phase, Role


def revert_of(call, sender):
    with pytest.raises(ContractLogicError) as info:
        call.call({"from": sender})
    return decode_revert(revert_data_of(info.value))


def test_our_custom_error_from_the_registry(deployment, w3):
    error = revert_of(deployment.registry.functions.claimSlot(42, Role.TRAINER), w3.eth.accounts[3])
    assert (error.name, error.args) == ("TaskNotFound", (42,))
    assert error.message == "TaskNotFound(taskId=42)"


def test_openzeppelin_error_from_the_token(deployment, w3):
    poor, rich = w3.eth.accounts[5], w3.eth.accounts[6]
    error = revert_of(deployment.token.functions.transfer(rich, 10**18), poor)
    assert error.name == "ERC20InsufficientBalance"
    assert error.kwargs == {"sender": poor, "balance": 0, "needed": 10**18}


def test_access_control_error_names_the_missing_role(deployment, w3):
    outsider = w3.eth.accounts[7]
    error = revert_of(deployment.reputation.functions.setThreshold(50), outsider)
    assert error.name == "AccessControlUnauthorizedAccount"
    assert error.args[0] == outsider and len(error.args[1]) == 32


def test_enum_arguments_come_back_as_protocol_enums():
    data = keccak(text="WrongPhase(uint256,uint8)")[:4] + encode(["uint256", "uint8"], [7, 2])
    error = decode_revert("0x" + data.hex())
    assert error.args == (7, Phase.TRAIN_COMMIT) and isinstance(error.args[1], Phase)
    assert error.message == "WrongPhase(taskId=7, phase=Phase.TRAIN_COMMIT)"
    staked = keccak(text="InsufficientStake(address,uint8,uint256,uint256)")[:4] + encode(
        ["address", "uint8", "uint256", "uint256"], ["0x" + "11" * 20, 1, 5, 500])
    assert decode_revert(staked).kwargs["role"] is Role.TRAINER


def test_error_string_panic_and_unknown_data():
    assert decode_revert(bytes.fromhex("08c379a0") + encode(["string"], ["no"])).message == "reverted: no"
    panic = decode_revert(bytes.fromhex("4e487b71") + encode(["uint256"], [0x12]))
    assert (panic.name, panic.message) == ("Panic", "panic 0x12: division or modulo by zero")
    assert decode_revert("0xdeadbeef") == DecodedError("Unknown", data=bytes.fromhex("deadbeef"))
    assert decode_revert(b"").message == "reverted without data"


@pytest.mark.parametrize("name, retryable", [
    ("WrongPhase", False), ("DeadlinePassed", False), ("AlreadyCommitted", False),
    ("InsufficientStake", False), ("DrawNotReady", True), ("DeadlineNotReached", True),
])
def test_reverts_are_retryable_only_when_they_mean_not_yet(name, retryable):
    assert is_retryable(TxReverted(DecodedError(name))) is retryable


@pytest.mark.parametrize("exc, retryable", [
    (Web3RPCError("nonce too low: next nonce 5, tx nonce 4"), True),
    (Web3RPCError("replacement transaction underpriced"), True),
    (Web3RPCError("request timed out"), True),
    (Web3RPCError("insufficient funds for gas * price + value"), False),
    (TimeoutError(), True),
    (ConnectionRefusedError(), True),
    (TimeExhausted("no receipt"), True),
    (DroppedTransaction("0x" + "00" * 32, 3, 30), True),
    (FeeCapExceeded(3 * 10**9, 2 * 10**9), True),  # the base fee falls again
    (ValueError("a bug"), False),
    (FileNotFoundError("keystore"), False),
])
def test_transport_and_nonce_failures_are_retryable(exc, retryable):
    assert is_retryable(exc) is retryable


def test_transport_failures_of_http_clients_are_retryable():
    import requests

    assert is_retryable(requests.exceptions.ConnectionError("refused"))
    assert is_retryable(requests.exceptions.ReadTimeout("slow"))
