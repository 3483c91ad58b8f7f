"""Every deployable contract and library fits EIP-170's limit on runtime code (24,576 bytes), which
chains enforce at deployment, with at least 3,072 bytes to spare: the protocol keeps changing, and
a core filled to the limit (as TaskRegistry and DisputeManager once were, within 9 bytes) turns
every change into a restructure. A change that eats the headroom fails here, with the figures."""
import brownie

EIP170_LIMIT = 24_576
HEADROOM = 3_072


def runtime_sizes() -> dict:
    project = brownie.project.get_loaded_projects()[0]
    return {name: len(container._build["deployedBytecode"]) // 2 for name, container in project.dict().items()
            if container._build.get("type") in ("contract", "library") and container._build["deployedBytecode"]}


def test_every_deployable_contract_keeps_its_headroom_under_the_code_size_limit():
    sizes = runtime_sizes()
    assert {"TaskRegistry", "DisputeManager", "RoundLogic", "SlotLogic", "AggregateAttest", "JuryLogic",
            "FaultProver", "StakeManager", "ProtocolConfig", "TaskFront", "StateView"} <= set(sizes)
    tight = {name: size for name, size in sizes.items() if size > EIP170_LIMIT - HEADROOM}
    assert not tight, (f"runtime code within {HEADROOM:,} bytes of EIP-170's {EIP170_LIMIT:,}: {tight}; move "
                       "logic into a library (as RoundLogic and SlotLogic hold the registry's) or reads into "
                       "StateView")
