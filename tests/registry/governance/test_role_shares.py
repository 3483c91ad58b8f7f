"""setRoleShares changes the split for new tasks; tasks already created keep their snapshot."""


def test_shares_set_by_role_order(registry, admin, config):
    config.setRoleShares(6000, 2500, 1500, {"from": admin})
    assert [int(x) for x in config.roleShares()] == [2500, 6000, 1500]


def test_role_shares_set_event(registry, admin, config):
    tx = config.setRoleShares(6000, 2500, 1500, {"from": admin})
    assert [int(x) for x in tx.events["RoleSharesSet"].values()] == [6000, 2500, 1500]


def test_existing_task_keeps_its_snapshot(registry, admin, create_task, config, state):
    old = create_task()
    config.setRoleShares(8500, 1000, 500, {"from": admin})
    new = create_task()
    assert [int(x) for x in state.taskOf(old)["sharesBps"]] == [2000, 7000, 1000]
    assert [int(x) for x in state.taskOf(new)["sharesBps"]] == [1000, 8500, 500]

