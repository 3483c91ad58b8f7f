"""Every contract with AccessControl roles (ProtocolConfig, TaskRegistry, StakeManager, Reputation,
RewardVault) hands a role over through the compiled mappings: each contract's roles are its own
AccessRole, with their admin and members as RoleGranted, RoleAdminChanged and RoleRevoked left them."""

import pytest
from subgraph_story import ADMIN, COUNCIL, ROLE_OF, roles_story, role_id


@pytest.fixture(scope="module")
def story():
    s = roles_story()
    s.result = s.run()
    assert s.result.error is None, s.result.error
    return s


def test_each_contract_hands_its_role_to_the_council(story):
    for source, (role, holder) in ROLE_OF.items():
        contract, rid = story.addresses[source], "0x" + role_id(role).hex()
        holder = holder or story.addresses["TaskRegistry"]
        access = story.result.get("AccessRole", f"{contract}-{rid}")
        assert (access["contract"], access["adminRole"]) == (contract, rid), source
        council = story.result.get("RoleMember", f"{access['id']}-{COUNCIL}")
        first = story.result.get("RoleMember", f"{access['id']}-{holder}")
        assert (council["active"], council["changedBy"]) == (True, ADMIN), source
        assert (first["active"], first["changedBy"]) == (False, COUNCIL), source


def test_roles_of_the_same_name_stay_apart(story):
    governor = "0x" + role_id("GOVERNOR_ROLE").hex()
    governed = {r["contract"] for r in story.result.all("AccessRole") if r["role"] == governor}
    assert governed == {story.addresses[c] for c in ("ProtocolConfig", "StakeManager", "Reputation")}
    assert len(story.result.all("AccessRole")) == len(ROLE_OF)
    assert len(story.result.all("RoleMember")) == 2 * len(ROLE_OF)
