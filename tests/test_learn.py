"""The training procedure (cya_sim.studies.learn): the same seed gives the same weights, imitation copies an expert
(compiled or a search agent), and the written model records what it was trained for. Needs the train extra."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from cya_sim.studies.learn import TrainConfig, export_weights, train, write_model


def test_the_same_seed_gives_the_same_weights_bit_for_bit():
    cfg = TrainConfig(preset="advanced", players=3, opponents="card_counter", steps=2048, envs=8, seed=5,
                      eval_every=0, eval_games=20)
    a, b = (export_weights(train(cfg, progress=None).model) for _ in range(2))
    assert all(np.array_equal(a[k], b[k]) for k in a)
    c = export_weights(train(TrainConfig(**{**cfg.__dict__, "seed": 6}), progress=None).model)
    assert not np.array_equal(a["W1"], c["W1"])


def test_imitation_copies_a_compiled_expert_and_the_model_records_it(tmp_path):
    cfg = TrainConfig(players=2, opponents="greedy", steps=0, envs=16, seed=2, eval_every=0, eval_games=200,
                      imitate="card_counter", imitate_samples=6000, imitate_epochs=6)
    lines: list[str] = []
    r = train(cfg, progress=lines.append)
    rec = r.imitation
    assert rec["expert"] == "card_counter" and rec["samples"] >= 6000 and 0 < rec["with_choice"] < rec["samples"]
    assert rec["heldout_accuracy"] > 0.6  # a 64-64 network copies most of card_counter's choices
    assert len(r.curve) == 1 and r.curve["steps"].iloc[0] == 0  # steps 0: the distilled network as it is
    assert any(line.startswith("imitation epoch 6:") for line in lines)
    write_model(tmp_path / "m", r, cfg, "python experiments/train_learned.py ...")
    record = json.loads((tmp_path / "m_train.json").read_text())
    assert record["imitation"] == rec and record["config"]["imitate"] == "card_counter"
    with np.load(tmp_path / "m.npz") as f:
        assert str(f["meta_imitate"]) == "card_counter" and int(f["players"]) == 2
    # --replot redraws the curve from the written CSV and record alone (no training)
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "experiments" / "train_learned.py"
    spec = importlib.util.spec_from_file_location("train_learned", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    (tmp_path / "m_curve.png").unlink()
    assert mod.main(["--replot", "--out", str(tmp_path / "m")]) == 0
    assert (tmp_path / "m_curve.png").stat().st_size > 0


def test_imitation_of_a_search_agent_runs_on_its_observations():
    cfg = TrainConfig(players=2, opponents="greedy", steps=0, envs=4, seed=3, eval_every=0, eval_games=20,
                      imitate="pimc(iterations=8)", imitate_samples=200, imitate_epochs=1)
    rec = train(cfg, progress=None).imitation
    assert rec["expert"] == "pimc(iterations=8)" and rec["samples"] == 200 and rec["with_choice"] > 0
