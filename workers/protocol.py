"""The on-chain protocol as Python sees it: enum values, task parameters, commitments and the
EIP-712 message a requester signs. Mirrors contracts/interfaces/ITaskRegistry.sol; scripts, tests
and the workers all use this one definition."""

from dataclasses import astuple, dataclass
from enum import IntEnum

from eth_abi import encode
from eth_utils import keccak, to_checksum_address


class Role(IntEnum):
    SAMPLER = 0
    TRAINER = 1
    VALIDATOR = 2


class Outcome(IntEnum):
    ACCEPTED = 0
    REJECTED = 1
    MISSED = 2
    AGAINST_QUORUM = 3
    RECOVERED = 4
    WITHHELD = 5


class Status(IntEnum):
    NONE = 0
    OPEN = 1
    DRAWING = 2
    ACTIVE = 3
    COMPLETED = 4
    CANCELLED = 5
    FAILED = 6
    NO_RESULT = 7  # the last round was finalized and no round's checkpoint was ever accepted


# The statuses a task never leaves: it settled (stakes unlocked, the unspent bounty refunded).
# Only COMPLETED has a result (an accepted checkpoint); workers.chain.outcome says why each ended.
FINAL_STATUSES = frozenset({Status.COMPLETED, Status.CANCELLED, Status.FAILED, Status.NO_RESULT})


class Phase(IntEnum):
    SAMPLE_COMMIT = 0
    SAMPLE_REVEAL = 1
    TRAIN_COMMIT = 2
    TRAIN_REVEAL = 3
    ATTEST = 4  # validators commit to their sealed votes
    ATTEST_REVEAL = 5  # validators open them (alone or in a BLS aggregate)


class Verdict(IntEnum):
    NONE = 0
    ACCEPTED = 1
    REJECTED = 2
    INCONCLUSIVE = 3


class Evidence(IntEnum):
    """IDisputeManager.Evidence: what a dispute says failed; `item` says which one."""
    WHOLE = 0
    EPISODE = 1
    TRANSITION = 2
    DATA_CHUNK = 3


class DisputeStatus(IntEnum):
    """IDisputeManager.Status: a dispute's state, and its outcome once settled."""
    NONE = 0
    DRAWING = 1
    VOTING = 2
    UPHELD = 3
    DISMISSED = 4
    VOID = 5


@dataclass(frozen=True)
class TaskParams:
    """ITaskRegistry.TaskParams; field order is the ABI tuple order."""

    spec_cid: str
    spec_digest: bytes
    bounty: int
    num_samplers: int = 2
    num_validators: int = 3
    num_rounds: int = 5
    claim_window: int = 3600
    commit_window: int = 600
    reveal_window: int = 300
    attest_window: int = 600

    def as_tuple(self) -> tuple:
        return astuple(self)


NO_PERMIT = (0, 0, b"\x00" * 32, b"\x00" * 32)
"""ITaskFront.Permit with deadline 0: fund the bounty from an existing allowance."""


def commitment(task_id: int, round_: int, node: str, root: bytes, cid: str, salt: bytes) -> bytes:
    """The hash StateView.commitmentFor computes (and TaskRegistry.reveal checks): binds result, salt
    and submitter."""
    return keccak(
        encode(
            ["uint256", "uint256", "address", "bytes32", "bytes32", "bytes32"],
            [task_id, round_, to_checksum_address(node), root, keccak(text=cid), salt],
        )
    )


def attest_commitment(task_id: int, round_: int, validator: str, accept_bitmap: int, salt: bytes) -> bytes:
    """The hash StateView.attestCommitmentFor computes (and TaskRegistry.attest checks): seals a
    validator's accept bitmap with its salt."""
    return keccak(
        encode(
            ["uint256", "uint256", "address", "uint256", "bytes32"],
            [task_id, round_, to_checksum_address(validator), accept_bitmap, salt],
        )
    )


PLANT_SHIFT = 64
"""A vote's plant bits start here: bit PLANT_SHIFT + i says the only discrepancy found in
submission i is the forced-error plant (SPECIFICATION.md 5.5.3); bits below it accept."""
_VOTE_FIELD = (1 << PLANT_SHIFT) - 1


def encode_vote(accept_bits: int, plant_bits: int) -> int:
    """The uint256 a validator seals and opens: accept bits | plant bits << PLANT_SHIFT. A
    submission with both bits set counts as accepted on chain (its plant bit is ignored)."""
    for name, bits in (("accept_bits", accept_bits), ("plant_bits", plant_bits)):
        if not isinstance(bits, int) or not 0 <= bits <= _VOTE_FIELD:
            raise ValueError(f"{name} must be an integer in [0, 2**{PLANT_SHIFT}), got {bits!r}")
    return accept_bits | plant_bits << PLANT_SHIFT


def decode_vote(v: int) -> tuple[int, int]:
    """(accept bits, plant bits) of a vote, as stored (`encode_vote`'s inverse; bits above the
    plant field are not part of a vote and are dropped)."""
    if not isinstance(v, int) or not 0 <= v < 2**256:
        raise ValueError(f"a vote is a uint256, got {v!r}")
    return v & _VOTE_FIELD, v >> PLANT_SHIFT & _VOTE_FIELD


def draw_commitment(task_id: int, round_: int, node: str, secret: bytes) -> bytes:
    """A worker's draw commitment for a round (StateView.drawCommitmentFor): keccak256(abi.encode(
    uint256 taskId, uint256 round, address node, bytes32 secret)). The salt of its reveal in the
    round before: the secret stays hidden until it opens the draw."""
    return keccak(encode(["uint256", "uint256", "address", "bytes32"],
                         [task_id, round_, to_checksum_address(node), bytes(secret)]))


def is_forced(secret: bytes, seed: bytes, bps: int) -> bool:
    """Whether a draw is forced (TaskRegistry.openDraw): uint256(keccak256(abi.encode(bytes32
    secret, bytes32 roundSeed))) % 10000 < bps (forcedErrorBps, basis points)."""
    word = keccak(encode(["bytes32", "bytes32"], [bytes(secret), bytes(seed)]))
    return int.from_bytes(word, "big") % 10_000 < bps


def vote_commitment(dispute_id: int, juror: str, uphold: bool, salt: bytes) -> bytes:
    """A juror's hidden vote as DisputeManager.revealVote checks it: binds dispute, juror, vote and salt."""
    return keccak(encode(["uint256", "address", "bool", "bytes32"],
                         [dispute_id, to_checksum_address(juror), bool(uphold), salt]))


CREATE_TASK_TYPES = {
    "CreateTask": [
        {"name": "requester", "type": "address"},
        {"name": "specCid", "type": "string"},
        {"name": "specDigest", "type": "bytes32"},
        {"name": "bounty", "type": "uint256"},
        {"name": "numSamplers", "type": "uint8"},
        {"name": "numValidators", "type": "uint8"},
        {"name": "numRounds", "type": "uint16"},
        {"name": "claimWindow", "type": "uint32"},
        {"name": "commitWindow", "type": "uint32"},
        {"name": "revealWindow", "type": "uint32"},
        {"name": "attestWindow", "type": "uint32"},
        {"name": "nonce", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
    ]
}


FRONT_NAME = "decentrl TaskFront"
"""TaskFront's EIP-712 domain name (version "1"): the contract that verifies CreateTask requests."""


def create_task_typed_data(
    params: TaskParams, requester: str, nonce: int, deadline: int, chain_id: int, front: str
) -> dict:
    """The EIP-712 message for TaskFront.createTaskWithSig, in eth_account's full-message form."""
    return {
        "types": {"EIP712Domain": EIP712_DOMAIN_TYPE, **CREATE_TASK_TYPES},
        "primaryType": "CreateTask",
        "domain": {
            "name": FRONT_NAME,
            "version": "1",
            "chainId": chain_id,
            "verifyingContract": to_checksum_address(front),
        },
        "message": {
            "requester": to_checksum_address(requester),
            "specCid": params.spec_cid,
            "specDigest": params.spec_digest,
            "bounty": params.bounty,
            "numSamplers": params.num_samplers,
            "numValidators": params.num_validators,
            "numRounds": params.num_rounds,
            "claimWindow": params.claim_window,
            "commitWindow": params.commit_window,
            "revealWindow": params.reveal_window,
            "attestWindow": params.attest_window,
            "nonce": nonce,
            "deadline": deadline,
        },
    }


EIP712_DOMAIN_TYPE = [
    {"name": "name", "type": "string"},
    {"name": "version", "type": "string"},
    {"name": "chainId", "type": "uint256"},
    {"name": "verifyingContract", "type": "address"},
]

TOKEN_NAME = "decentrl RL Token"
"""RLToken's EIP-712 domain name (version "1")."""


def permit_typed_data(token: str, chain_id: int, owner: str, spender: str, value: int, nonce: int,
                      deadline: int) -> dict:
    """The EIP-2612 Permit message RLToken verifies, in eth_account's full-message form."""
    return {
        "types": {
            "EIP712Domain": EIP712_DOMAIN_TYPE,
            "Permit": [
                {"name": "owner", "type": "address"},
                {"name": "spender", "type": "address"},
                {"name": "value", "type": "uint256"},
                {"name": "nonce", "type": "uint256"},
                {"name": "deadline", "type": "uint256"},
            ],
        },
        "primaryType": "Permit",
        "domain": {"name": TOKEN_NAME, "version": "1", "chainId": chain_id,
                   "verifyingContract": to_checksum_address(token)},
        "message": {"owner": to_checksum_address(owner), "spender": to_checksum_address(spender),
                    "value": value, "nonce": nonce, "deadline": deadline},
    }


def sign_permit(private_key, token: str, chain_id: int, owner: str, spender: str, value: int, nonce: int,
                deadline: int) -> tuple:
    """Signs an EIP-2612 permit; returns ITaskFront.Permit: (deadline, v, r, s)."""
    from eth_account import Account
    from eth_account.messages import encode_typed_data

    message = encode_typed_data(
        full_message=permit_typed_data(token, chain_id, owner, spender, value, nonce, deadline)
    )
    sig = Account.sign_message(message, private_key)
    return (deadline, sig.v, sig.r.to_bytes(32, "big"), sig.s.to_bytes(32, "big"))


def sign_create_task(private_key, params: TaskParams, requester: str, nonce: int, deadline: int,
                     chain_id: int, front: str) -> bytes:
    """Signs the CreateTask message for TaskFront `front` with a raw private key; returns the
    65-byte signature."""
    from eth_account import Account
    from eth_account.messages import encode_typed_data

    message = encode_typed_data(
        full_message=create_task_typed_data(params, requester, nonce, deadline, chain_id, front)
    )
    return bytes(Account.sign_message(message, private_key).signature)
