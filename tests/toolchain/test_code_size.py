"""Every deployable contract and library fits EIP-170's limit on runtime code (24,576 bytes),
which chains enforce at deployment. TaskRegistry is within a few bytes of it (docs/benchmarks.md),
so a change that adds code there fails here, with the figure, rather than as a reverted
deployment in every suite that deploys."""
import brownie

EIP170_LIMIT = 24_576


def test_every_deployable_contract_fits_the_code_size_limit():
    project = brownie.project.get_loaded_projects()[0]
    sizes = {name: len(container._build["deployedBytecode"]) // 2 for name, container in project.dict().items()
             if container._build.get("type") in ("contract", "library") and container._build["deployedBytecode"]}
    assert {"TaskRegistry", "RoundLogic", "StakeManager", "DisputeManager"} <= set(sizes)
    over = {name: size for name, size in sizes.items() if size > EIP170_LIMIT}
    assert not over, (f"runtime code over EIP-170's {EIP170_LIMIT:,} bytes: {over}; move code into a library "
                      "(as RoundLogic holds TaskRegistry's round logic)")
