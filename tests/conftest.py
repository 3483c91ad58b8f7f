"""Shared fixtures: actors, a fresh deployment per module and per-test isolation."""

import gc

import pytest
from brownie import accounts, chain

from scripts import brownie_patches
from scripts.deploy import DeployParams, deploy
from workers.protocol import Role, TaskParams

brownie_patches.install()

TOKEN = 10**18
SPEC_CID = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy"
SPEC_DIGEST = bytes.fromhex("11" * 32)


SHARED_RUN_FOLDERS = ("tests/workers/integration/", "tests/workers/hosts/")
"""Each one's files share session-scoped network runs (its conftest.py): they go to one worker."""


@pytest.hookimpl(tryfirst=True)  # before brownie's own, which always answers plain loadfile
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadfile`, except that the files of each of SHARED_RUN_FOLDERS are one unit: a session
    fixture is built once per worker that uses it, so with the files split over two workers the
    folder's 70 s CartPole task ran twice."""
    if config.getvalue("dist") != "loadfile":
        return None  # xdist's own scheduler for the mode asked for
    from xdist.scheduler import LoadFileScheduling

    class SharedRunScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return next((folder for folder in SHARED_RUN_FOLDERS if scope.startswith(folder)), scope)

    return SharedRunScheduling(config, log)


@pytest.fixture(autouse=True)
def isolation(fn_isolation):
    pass


@pytest.fixture(scope="module", autouse=True)
def frozen_heap():
    """Brownie runs a full garbage collection on every chain revert, so after every test; over a
    heap holding brownie's project, web3 (and torch, in tests/workers) that took ~0.2 s a test, a
    third of the whole suite's time. Each module starts from a fully collected heap and freezes it
    (gc.freeze): a revert then only scans what the module itself created."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    yield


@pytest.fixture(scope="module")
def admin():
    return accounts[0]


@pytest.fixture(scope="module")
def requester():
    return accounts[1]


@pytest.fixture(scope="module")
def samplers():
    return accounts[2:4]


@pytest.fixture(scope="module")
def trainer():
    return accounts[4]


@pytest.fixture(scope="module")
def validators():
    return accounts[5:8]


@pytest.fixture(scope="module")
def outsider():
    return accounts[8]


@pytest.fixture(scope="module")
def treasury():
    return accounts[9]


@pytest.fixture(scope="module")
def dep(admin, treasury):
    # The contract suites test each core on its own: the registry's pay is credited at once, as it is
    # without a dispute manager. The deployment as shipped (disputes on, pay held for the window and
    # released by DisputeManager.releasePay) is tests/disputes' fixture.
    return deploy(admin, DeployParams(treasury=treasury.address, activate_disputes=False))


@pytest.fixture(scope="module")
def token(dep):
    return dep.token


@pytest.fixture(scope="module")
def stakes(dep):
    return dep.stakes


@pytest.fixture(scope="module")
def reputation(dep):
    return dep.reputation


@pytest.fixture(scope="module")
def vault(dep):
    return dep.vault


@pytest.fixture(scope="module")
def registry(dep):
    return dep.registry


@pytest.fixture(scope="module")
def state(dep):
    """StateView: the task and dispute records the cores do not serve themselves."""
    return dep.state


@pytest.fixture(scope="module")
def config(dep):
    """ProtocolConfig: role shares, slash rate, treasury, dispute windows and bond."""
    return dep.config


@pytest.fixture(scope="module")
def front(dep):
    """TaskFront: permit-funded and signature-relayed task creation."""
    return dep.front


@pytest.fixture(scope="module")
def funded(dep, admin, requester, samplers, trainer, validators, outsider):
    """Gives every actor 1M DRL."""
    for a in [requester, *samplers, trainer, *validators, outsider]:
        dep.token.transfer(a, 1_000_000 * TOKEN, {"from": admin})
    return dep


@pytest.fixture(scope="module")
def staked(funded, samplers, trainer, validators):
    """Every node staked at 5x the minimum for its role."""
    dep = funded
    for node, role in [*((s, Role.SAMPLER) for s in samplers), (trainer, Role.TRAINER),
                       *((v, Role.VALIDATOR) for v in validators)]:
        amount = 5 * dep.stakes.minStake(role)
        dep.token.approve(dep.stakes, amount, {"from": node})
        dep.stakes.stake(role, amount, {"from": node})
    return dep


@pytest.fixture(scope="module")
def task_params():
    return TaskParams(spec_cid=SPEC_CID, spec_digest=SPEC_DIGEST, bounty=10_000 * TOKEN)


@pytest.fixture
def create_task(staked, requester, task_params):
    """Creates a task funded by `requester`; returns its id."""

    def _create(params=task_params, sender=requester):
        staked.token.approve(staked.registry, params.bounty, {"from": sender})
        tx = staked.registry.createTask(params.as_tuple(), {"from": sender})
        return tx.events["TaskCreated"]["taskId"]

    return _create


@pytest.fixture
def active_task(staked, create_task, samplers, trainer):
    """A task with every slot claimed and validators drawn: round 0, SampleCommit."""
    task_id = create_task()
    for s in samplers:
        staked.registry.claimSlot(task_id, Role.SAMPLER, {"from": s})
    staked.registry.claimSlot(task_id, Role.TRAINER, {"from": trainer})
    chain.mine(2)
    staked.registry.drawValidators(task_id, {"from": trainer})
    return task_id
