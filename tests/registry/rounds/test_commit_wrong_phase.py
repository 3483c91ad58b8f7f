"""Each role acts only in its own phase: samplers commit in SampleCommit and reveal in
SampleReveal, the trainer in TrainCommit/TrainReveal, validators only attest in Attest."""

import brownie

from workers.protocol import Phase


def _wrong_phase(task_id, phase):
    return brownie.reverts(f"WrongPhase: {task_id}, {phase}")


def test_trainer_cannot_commit_during_sample_commit(registry, round_driver, trainer):
    with _wrong_phase(round_driver.task_id, Phase.SAMPLE_COMMIT):
        round_driver.commit(trainer)


def test_validator_cannot_commit(registry, round_driver):
    for v in round_driver.validators():
        with _wrong_phase(round_driver.task_id, Phase.SAMPLE_COMMIT):
            registry.commit(round_driver.task_id, b"\x01" * 32, {"from": v})


def test_reveal_during_sample_commit_reverts(registry, round_driver, samplers):
    round_driver.commit(samplers[0])
    with _wrong_phase(round_driver.task_id, Phase.SAMPLE_COMMIT):
        round_driver.reveal(samplers[0])


def test_sampler_cannot_commit_after_its_phase(registry, round_driver, samplers):
    round_driver.commit_samples()
    with _wrong_phase(round_driver.task_id, Phase.SAMPLE_REVEAL):
        registry.commit(round_driver.task_id, b"\x01" * 32, {"from": samplers[0]})
    round_driver.reveal_samples()
    with _wrong_phase(round_driver.task_id, Phase.TRAIN_COMMIT):
        registry.commit(round_driver.task_id, b"\x01" * 32, {"from": samplers[0]})


def test_trainer_cannot_reveal_during_train_commit(registry, round_driver, trainer):
    round_driver.commit_samples()
    round_driver.reveal_samples()
    with _wrong_phase(round_driver.task_id, Phase.TRAIN_COMMIT):
        round_driver.reveal(trainer)


def test_vote_outside_attest_phases_reverts(registry, round_driver):
    v = round_driver.validators()[0]
    sealed = round_driver.vote_commitment(v, 0b111)
    with _wrong_phase(round_driver.task_id, Phase.SAMPLE_COMMIT):
        registry.commitAttestation(round_driver.task_id, 0, sealed, {"from": v})
    round_driver.commit_samples()
    round_driver.reveal_samples()
    round_driver.commit_checkpoint()
    with _wrong_phase(round_driver.task_id, Phase.TRAIN_REVEAL):
        registry.commitAttestation(round_driver.task_id, 0, sealed, {"from": v})
    with _wrong_phase(round_driver.task_id, Phase.TRAIN_REVEAL):
        registry.attest(round_driver.task_id, 0, 0b111, round_driver.vote_salt(v), {"from": v})


def test_workers_cannot_attest(registry, round_driver, samplers, trainer):
    round_driver.work()
    for node in (*samplers, trainer):
        with _wrong_phase(round_driver.task_id, Phase.ATTEST):
            registry.commitAttestation(round_driver.task_id, 0, b"\x01" * 32, {"from": node})
