"""How the protocol's contracts are put together on a chain (SPECIFICATION.md 1): which logic
libraries are linked into each core, and the role grants that let the cores act on the others.
scripts/deploy.py (brownie, development and live) and workers/localnet/chain.py (plain web3) both
wire a deployment from these; tools/export_abi.py adds the libraries' events to their core's ABI."""

LIBRARIES = {
    "TaskRegistry": ("RoundLogic", "AggregateAttest", "SlotLogic"),
    "DisputeManager": ("JuryLogic", "FaultProver"),
}
"""Each core's external libraries (run by delegatecall: their events are the core's)."""

GRANTS = (
    ("StakeManager", "PROTOCOL_ROLE", "TaskRegistry"),  # lock, unlock, slash
    ("Reputation", "REPORTER_ROLE", "TaskRegistry"),  # record outcomes
    ("RewardVault", "ESCROW_ROLE", "TaskRegistry"),  # move escrow
    ("StakeManager", "PROTOCOL_ROLE", "DisputeManager"),  # lock jurors, slash losers
    ("Reputation", "REPORTER_ROLE", "DisputeManager"),
)
"""(contract, role, grantee): every role one deployed contract holds on another."""
