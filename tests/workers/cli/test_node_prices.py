"""`decentrl node init` writes the operator's prices (DRL per 1,000 steps per role, the feasibility
margin) to NODE_DIR/prices.json, and `node status` shows them, the node's measured speeds and the
tasks it passed over, with why (workers.node.market)."""
import json

from cli_support import TOKEN

from workers.node.market.book import MarketBook


def test_init_writes_the_prices_and_status_shows_them_and_what_was_passed_over(tmp_path, invoke):
    node_dir = tmp_path / "n"
    result = invoke(node_dir, "node", "init", "--scrypt-n", "1024", "--price-sampler", "0.5", "--price-trainer", "2",
                    "--feasibility-margin", "0.4")
    assert result.exit_code == 0, result.output
    assert json.loads((node_dir / "prices.json").read_text()) == {
        "sampler": TOKEN // 2, "trainer": 2 * TOKEN, "validator": 0, "feasibility_margin": 0.4}
    status = invoke(node_dir, "node", "status")
    assert ("prices      sampler 0.5 DRL/1k steps, trainer 2 DRL/1k steps, validator 0 DRL/1k steps; work must fit "
            "0.4 of a window") in status.output, status.output
    assert "speeds     none measured yet" in status.output

    book = MarketBook(node_dir)  # what the node's claim lane records
    book.calibrated("rollout", "CartPole-v1", "64x64-tanh", 4210.4)
    book.pass_over(7, "sampler", "priced-out", "bounty share 0.02 DRL/round < price 0.35 DRL for 70k steps")
    book.pass_over(9, "sampler", "infeasible", "shards of 200k steps need ~410 s at 490 steps/s, commit window 120 s")
    status = invoke(node_dir, "node", "status")
    assert "speed      rollout  CartPole-v1 64x64-tanh: 4,210/s (calibrated)" in status.output, status.output
    assert "PASSED OVER (newest 2):" in status.output
    lines = [line for line in status.output.splitlines() if line.startswith("  [")]
    assert lines[0].startswith("  [infeasible] task 9 (sampler, ") and lines[0].endswith(
        "shards of 200k steps need ~410 s at 490 steps/s, commit window 120 s")
    assert lines[1].startswith("  [priced-out] task 7 (sampler, ")
    assert ("  [passed-over] the node passed over 2 task slots in the last hour (1 infeasible, 1 priced-out): see "
            "PASSED OVER above") in status.output


def test_a_bad_price_is_named_and_nothing_is_created(tmp_path, invoke):
    node_dir = tmp_path / "n"
    for price in ("-1", "cheap", "0.0000000000000000001"):
        result = invoke(node_dir, "node", "init", "--scrypt-n", "1024", "--price-validator", price)
        assert result.exit_code == 2, result.output
        assert "--price-validator" in result.output and "DRL per 1,000 steps" in result.output
    assert not (node_dir / "keystore").exists() and not (node_dir / "prices.json").exists()
    margin = invoke(node_dir, "node", "init", "--scrypt-n", "1024", "--feasibility-margin", "1.5")
    assert margin.exit_code == 2 and "--feasibility-margin" in margin.output, margin.output
