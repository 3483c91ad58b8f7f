"""A deployment with the DisputeManager active (scripts/deploy.py, activate_disputes)."""

import pytest

from scripts.deploy import DeployParams, deploy


@pytest.fixture(scope="module")
def dep(admin, treasury):
    return deploy(admin, DeployParams(treasury=treasury.address, activate_disputes=True))
