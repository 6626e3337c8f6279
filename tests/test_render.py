"""Pictures of the game (issue 32, items 3-4): the table of a state as SVG, PNG and ``rgb_array`` for both
games, as one seat may see it (RULES.md §10) or the full view; ``cya-sim play --svg/--png/--html``; the
OpenSpiel states' ``str``. The headless-browser test of the HTML replay is in ``test_render_browser.py``."""

from __future__ import annotations

import base64
import gzip
import json
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import agents  # noqa: F401  (the agents package imports the engine first)
from cya_sim.cli.main import main
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.engine.theft.observation import observe as theft_observe
from cya_sim.env.game import EnvGame
from cya_sim.game.classic.position import dumps
from cya_sim.game.rules import get_rules
from cya_sim.play.families import family_of
from cya_sim.render import rgb_array, save_png, save_svg, state_text, svg_text
from cya_sim.render.table import table_of


def _play_until(rules_name: str, players: int, seed: int, stop) -> EnvGame:
    rules = get_rules(rules_name)
    fam = family_of(rules)
    game = EnvGame(rules, players, ["greedy"] * players)
    game.start(seed, 0)
    seats = [fam.make_agent("greedy") for _ in range(players)]
    while not stop(game.state) and not game.over:
        s = game.to_act
        game.step(seats[s].act(game.observe(s), game.seat_rngs[s]))
    return game


@pytest.fixture(scope="module")
def challenge_state():
    """Classic, 3 players, seed 1: greedy play up to the first challenge (turn 5: seat 2 challenges seat 0)."""
    return _play_until("classic", 3, 1, lambda st: st.challenge is not None).state


@pytest.fixture(scope="module")
def theft_defence_state():
    """Theft, 3 players, seed 2: greedy play up to the first pending theft."""
    return _play_until("theft", 3, 2, lambda st: st.theft is not None).state


def test_classic_seat_view_shows_own_hand_hides_other_hands_and_the_set_cards_it_does_not_know(challenge_state):
    st = challenge_state
    seat = st.to_act
    table = table_of(st, seat)
    obs = observe(st, seat)
    for s, row in enumerate(table.seats):
        if s == seat:
            assert [c.card for c in row.hand] == [c for c, n in enumerate(st.hands[s]) for _ in range(n)]
        else:
            assert row.hand is None and row.hand_count == sum(st.hands[s])
        # R-HIDDEN-WILD: a card the seat does not know is drawn "?" exactly as often as the observation hides one
        assert [sum(c.card < 0 for c in b.cards) for b in row.sets] == [v.n_hidden for v in obs.stacks[s]]
        assert not any(c.marked for b in row.sets for c in b.cards)
    hidden = [(b, v) for s, row in enumerate(table.seats) for b, v in zip(row.sets, obs.stacks[s]) if v.n_hidden]
    assert hidden, "seed 1 has a set with a hidden card at the first challenge"
    b, v = hidden[0]
    assert b.value == f"${v.value_low // 1000}k–{v.value_high // 1000}k"
    assert table.view == f"seat {seat}'s view" and table.seats[seat].to_act


def test_classic_full_view_shows_every_hand_and_marks_the_cards_not_every_seat_knows(challenge_state):
    st = challenge_state
    table = table_of(st)
    assert all(row.hand is not None for row in table.seats)
    not_public = sum(kb != st.public_mask for stack in st.stacks for s in stack for kb in s.known_by)
    assert not_public > 0
    assert sum(c.marked for row in table.seats for b in row.sets for c in b.cards) == not_public
    assert all(c.card >= 0 for row in table.seats for b in row.sets for c in b.cards)


def test_the_challenge_in_progress_and_the_totals_are_in_the_svg(challenge_state):
    st = challenge_state
    ch = st.challenge
    text = svg_text(st, seat=ch.to_act)
    root = ET.fromstring(text)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    words = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    assert f"challenge: seat {ch.challenger} → seat {ch.defender}, the top set ({st.rules.deck.names[ch.asset]})" in words
    assert f"seat {ch.to_act} to answer" in words
    assert all(f"total ${t:,}" in words for t in st.totals)
    uses = [u.get("href") for u in root.iter("{http://www.w3.org/2000/svg}use")]
    assert f"#c{ch.cards[0]}" in uses and "#cU" in uses  # the card shown; a hidden set card of another seat
    symbols = {g.get("id") for g in root.find("{http://www.w3.org/2000/svg}defs")}
    assert {f"c{c}" for c in range(st.rules.deck.n_types)} | {"cU", "cM"} <= symbols


def test_a_json_position_draws_as_its_state(challenge_state, theft_defence_state, tmp_path):
    from cya_sim.game.theft.position import dumps as theft_dumps

    path = tmp_path / "position.json"
    path.write_text(dumps(challenge_state), encoding="utf-8")
    assert svg_text(path, seat=1) == svg_text(challenge_state, seat=1)
    assert svg_text(theft_dumps(theft_defence_state), seat=2) == svg_text(theft_defence_state, seat=2)
    assert save_svg(json.loads(path.read_text()), tmp_path / "t.svg").read_text() == svg_text(challenge_state)
    with pytest.raises(ValueError, match=r"seat: 3; allowed: None \(the full view\) or a seat from 0 to 2"):
        svg_text(challenge_state, seat=3)


def test_theft_setup_hides_the_other_first_assets_and_defence_shows_the_pending_theft(theft_defence_state):
    setup = _play_until("theft", 3, 2, lambda st: sum(map(len, st.assets)) == 1).state
    laid = next(s for s in range(3) if setup.assets[s])
    other = (laid + 1) % 3
    row = table_of(setup, other).seats[laid]
    assert row.sets == [] and row.note == "first asset unseen until every seat has laid one"  # R-T-SETUP
    assert table_of(setup, laid).seats[laid].sets[0].cards[0].card == setup.assets[laid][0].cards[0]
    st = theft_defence_state
    th = st.theft
    table = table_of(st, th.target)
    assert table.event[0][0].startswith(f"theft: seat {th.thief} plays ")
    assert table.event[0][0].endswith(f"on seat {th.target}'s asset #{th.slot}")
    obs = theft_observe(st, th.target)
    for s, row in enumerate(table.seats):
        assert [sum(c.card < 0 for c in b.cards) for b in row.sets] == [v.n_hidden for v in obs.assets[s]]
    assert "theft" in state_text(st) and "(full view)" in state_text(st).splitlines()[0]


def test_rgb_array_is_h_w_3_uint8_and_two_states_differ(challenge_state, theft_defence_state, tmp_path):
    a = rgb_array(challenge_state, seat=0)
    b = rgb_array(challenge_state)
    assert a.dtype == np.uint8 and a.ndim == 3 and a.shape[1:] == (1000, 3) and a.shape == b.shape
    assert (a != b).any()  # seat 0's view hides the other hands
    c = rgb_array(theft_defence_state, seat=0)
    assert c.dtype == np.uint8 and c.shape[1:] == (1000, 3)
    assert rgb_array(challenge_state, scale=0.5).shape[1] == 500
    png = save_png(challenge_state, tmp_path / "t.png", seat=0).read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("rules", ["classic", "theft"])
def test_gym_and_pettingzoo_envs_render_rgb_array(rules):
    from cya_sim.env.aec import CoverYourAssetsAEC
    from cya_sim.env.gym import CoverYourAssetsGym

    assert "rgb_array" in CoverYourAssetsGym.metadata["render_modes"]
    assert "rgb_array" in CoverYourAssetsAEC.metadata["render_modes"]
    env = CoverYourAssetsGym(rules, n_players=2, render_mode="rgb_array")
    _, info = env.reset(seed=3)
    first = env.render()
    assert first.dtype == np.uint8 and first.shape[1:] == (1000, 3)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    second = env.render()
    assert second.shape == first.shape and (first != second).any()  # one frame size per table: a video can film it
    import gymnasium as gym

    import cya_sim.env  # noqa: F401  (registers cya_sim/CoverYourAssets-v0)

    made = gym.make("cya_sim/CoverYourAssets-v0", rules=rules, n_players=2, render_mode="rgb_array")
    made.reset(seed=3)
    assert (made.render() == first).all()  # through gym.make's wrappers: the same picture
    aec = CoverYourAssetsAEC(rules, n_players=2, render_mode="rgb_array")
    aec.reset(seed=3)
    img = aec.render()
    assert img.dtype == np.uint8 and img.shape[1:] == (1000, 3)
    with pytest.raises(ValueError, match="allowed: None, 'ansi', 'human', 'rgb_array'"):
        CoverYourAssetsGym(rules, n_players=2, render_mode="rgb")


@pytest.mark.parametrize(("rules", "players", "opponents"), [("classic", 2, "greedy"),
                                                              ("theft", 3, "greedy,defender")])
def test_vector_env_renders_a_frame_per_row_equal_to_the_single_envs_frame(rules, players, opponents):
    """Gymnasium's ``VectorEnv.render``: a tuple of B ``(H, W, 3) uint8`` frames, row b's table as the learner sees
    it: the single environment's picture of the same game and position, through games ended and restarted."""
    import gymnasium as gym

    import cya_sim.env  # noqa: F401  (registers cya_sim/CoverYourAssets-v0)
    from cya_sim.env.gym import CoverYourAssetsGym

    b = 3
    vec = gym.make_vec("cya_sim/CoverYourAssets-v0", num_envs=b, rules=rules, n_players=players, opponents=opponents,
                       render_mode="rgb_array")
    assert vec.metadata["render_modes"] == ["rgb_array"] and vec.render_mode == "rgb_array"
    _obs, info = vec.reset(seed=4)
    singles = [CoverYourAssetsGym(rules, n_players=players, opponents=opponents, render_mode="rgb_array")
               for _ in range(b)]
    for i, e in enumerate(singles):
        e.reset(seed=4, options={"game": i})
    rng = np.random.default_rng(3)
    ended = 0
    for step in range(160):
        if step % 23 == 0 or ended and step % 5 == 0:
            frames = vec.render()
            assert isinstance(frames, tuple) and len(frames) == b
            for i in range(b):
                assert frames[i].dtype == np.uint8 and frames[i].shape[1:] == (1000, 3)
                np.testing.assert_array_equal(frames[i], singles[i].render())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()])
        _obs, _r, terminated, truncated, info = vec.step(actions)
        for i in range(b):
            *_, t, tr, _ = singles[i].step(int(actions[i]))
            assert (t, tr) == (bool(terminated[i]), bool(truncated[i]))
            if t or tr:
                ended += 1
                singles[i].reset(options={"game": int(info["game"][i])})
    assert ended >= 2
    vec.reset(seed=4)  # a new reset with the same seed: the rows' games start over, and so do the pictures
    fresh = CoverYourAssetsGym(rules, n_players=players, opponents=opponents, render_mode="rgb_array")
    fresh.reset(seed=4, options={"game": 1})
    np.testing.assert_array_equal(vec.render()[1], fresh.render())


def test_vector_env_render_needs_a_reset_and_a_render_mode():
    from gymnasium.error import ResetNeeded

    from cya_sim.env.vector import CoverYourAssetsVectorEnv

    vec = CoverYourAssetsVectorEnv(num_envs=2, n_players=2, opponents="greedy", render_mode="rgb_array")
    with pytest.raises(ResetNeeded, match="reset"):
        vec.render()
    plain = CoverYourAssetsVectorEnv(num_envs=2, n_players=2, opponents="greedy")
    plain.reset(seed=1)
    with pytest.warns(UserWarning, match="render_mode"):
        assert plain.render() is None
    with pytest.raises(ValueError, match=r"^render_mode: 'human'; allowed: None, 'rgb_array'"):
        CoverYourAssetsVectorEnv(num_envs=2, n_players=2, opponents="greedy", render_mode="human")


def test_the_training_env_and_the_sb3_adapter_render_too():
    """:class:`~cya_sim.env.sb3.ViewFeatureVectorEnv` inherits the frames; SB3's ``get_images`` hands them on."""
    from cya_sim.env.sb3 import ViewFeatureVectorEnv, make_sb3_vec_env

    venv = ViewFeatureVectorEnv(num_envs=2, n_players=2, opponents="greedy", render_mode="rgb_array")
    venv.reset(seed=2)
    venv.step(np.argmax(venv.action_masks(), axis=1))
    frames = venv.render()
    assert len(frames) == 2 and frames[0].dtype == np.uint8
    pytest.importorskip("stable_baselines3", reason="the train extra (pip install -e '.[train]') is not installed")
    sb3 = make_sb3_vec_env(ViewFeatureVectorEnv(num_envs=2, n_players=2, opponents="greedy", render_mode="rgb_array"),
                           seed=2)
    sb3.reset()
    sb3.step(np.argmax(sb3.action_masks(), axis=1))
    images = sb3.get_images()
    np.testing.assert_array_equal(images[0], frames[0])  # the same game and action: the same picture
    assert sb3.render(mode="rgb_array").ndim == 3  # SB3 tiles the rows' frames into one picture


@pytest.mark.parametrize("params", [{"players": 3, "rounds": 1}, {"players": 3, "rules": "theft"}])
def test_openspiel_str_is_the_whole_state_on_several_lines(params):
    pyspiel = pytest.importorskip("pyspiel")
    from cya_sim.env.openspiel import register_openspiel

    register_openspiel()
    state = pyspiel.load_game("python_cover_your_assets", params).new_initial_state()
    rng = np.random.default_rng(0)
    moves = 0
    while not state.is_terminal() and (state.is_chance_node() or moves < 4):
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
            moves += 1
    lines = str(state).splitlines()
    assert "(full view)" in lines[0] and len(lines) >= 3 + 3
    for s in range(3):
        assert any(line[2:].startswith(f"seat {s}") for line in lines)


def _replay_data(html: str) -> dict:
    packed = re.search(r'id="data">([^<]*)</script>', html).group(1)
    return json.loads(gzip.decompress(base64.b64decode(packed)))


@pytest.mark.parametrize("argv", [
    ["--rules", "theft", "--players", "2", "--agents", "greedy", "--seed", "4", "--game", "2"],
    ["--players", "3", "--agents", "greedy,random", "--option", "max_rounds=1", "--seed", "5"],
])
def test_play_html_is_one_self_contained_file_whose_steps_hold_the_log(argv, tmp_path, capsys):
    assert main(["play", *argv]) == 0
    log = capsys.readouterr().out
    out = tmp_path / "replay.html"
    assert main(["play", *argv, "--html", str(out)]) == 0
    assert capsys.readouterr().out == log  # the same game and the same log lines
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and len(html) < 60_000
    assert not re.search(r"<link|\bsrc=|https?://(?!www\.w3\.org/2000/svg)", html)  # no network, no CDN
    data = _replay_data(html)
    assert "\n".join(s[2] for s in data["steps"] if s[2]) + "\n" == log
    last = data["steps"][-1][2].splitlines()[-1]
    assert last.startswith("game over") and "winner(s) seat" in last


def test_play_svg_and_png_of_a_step_and_the_refusals(tmp_path, capsys):
    base = ["play", "--rules", "theft", "--players", "2", "--agents", "greedy", "--seed", "4"]
    svg, png = tmp_path / "a.svg", tmp_path / "a.png"
    assert main([*base, "--svg", str(svg), "--png", str(png), "--at", "0", "--view", "1"]) == 0
    capsys.readouterr()
    assert "seat 1's view" in svg.read_text() and "turn 0 · setup" in svg.read_text()
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert main([*base, "--svg", str(svg), "--at", "100000"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("cya-sim play: error: --at: step 100,000; this game has steps 0")
    assert main([*base, "--view", "1"]) == 2
    assert capsys.readouterr().err.strip() == ("cya-sim play: error: --view: chooses what --svg/--png draw; give "
                                               "--svg FILE or --png FILE too")
    assert main([*base, "--html", str(tmp_path / "no" / "r.html")]) == 2
    assert "--html: " in capsys.readouterr().err
    assert main([*base, "--html", str(tmp_path / "r.html"), "--at", "3"]) == 2
    assert capsys.readouterr().err.startswith("cya-sim play: error: --at: chooses what --svg/--png draw")
    assert main([*base, "--human", "0", "--html", str(tmp_path / "r.html")]) == 2
    assert capsys.readouterr().err.strip() == ("cya-sim play: error: --html: draws a game played by agents, not one "
                                               "played with --human; drop one of them")
    assert not (tmp_path / "r.html").exists()


def test_the_docs_picture_is_what_the_documented_command_draws(tmp_path, capsys):
    """docs/img/table.png is the PNG of docs/play.md's command (same size; pixels equal but for font rendering)."""
    from pathlib import Path

    committed = Path(__file__).resolve().parents[1] / "docs" / "img" / "table.png"
    out = tmp_path / "table.png"
    assert main(["play", "--rules", "classic", "--players", "4", "--agents", "greedy,random,greedy,random", "--seed",
                 "7", "--png", str(out), "--at", "60", "--view", "1"]) == 0
    capsys.readouterr()
    from PIL import Image

    new, old = np.asarray(Image.open(out).convert("RGB")), np.asarray(Image.open(committed).convert("RGB"))
    assert new.shape == old.shape
    assert (np.abs(new.astype(int) - old.astype(int)).max(axis=2) > 48).mean() < 0.01


@pytest.mark.parametrize(("preset", "players"), [("two_player_draft", 2), ("three_player_draft_advanced", 3)])
def test_draft_piles_show_their_face_up_tops_to_a_seat_and_every_top_in_the_full_view(preset, players):
    from cya_sim.engine.classic.reference.draft import face_up_top

    st = _play_until(preset, players, 3, lambda s: bool(s.draft_offer) and any(s.draft_down)).state
    assert st.draft_offer and any(st.draft_down), "seed 3 drafts a set whose pile is not turned up yet"
    seat_piles = {label: cards for label, cards, _ in table_of(st, st.to_act).piles}
    full_piles = {label: cards for label, cards, _ in table_of(st).piles}
    for j, pile in enumerate(st.draft_piles):
        if pile:  # R-2P-DRAFT / R-3P-DRAFT: a face-down top is "?" to a seat (§10)
            assert seat_piles[f"draft pile {j}"][0].card == (face_up_top(st, j) if face_up_top(st, j) >= 0 else -1)
            assert full_piles[f"draft pile {j}"][0] == type(full_piles[f"draft pile {j}"][0])(pile[-1],
                                                                                            st.draft_down[j])
    assert f"seat {st.draft_offer[0]} may challenge the set just drafted" in svg_text(st, st.to_act)


def test_advanced_removed_cards_are_a_public_pile():
    st = _play_until("advanced", 3, 3, lambda s: bool(s.removed)).state
    assert st.removed
    _label, cards, count = next(p for p in table_of(st, 0).piles if p[0] == "removed")
    assert [c.card for c in cards] == sorted(st.removed)[:3] and count.startswith(f"{len(st.removed)} card")


def test_theft_game_over_turns_the_face_down_cards_up_for_every_seat():
    st = _play_until("theft", 2, 4, lambda s: False).state
    assert st.winners is not None
    assert any(kb != st.public_mask for assets in st.assets for a in assets for kb in a.known_by)
    for seat in range(2):  # R-T-END: the face-down cards are turned up for the score
        table = table_of(st, seat)
        assert [[c.card for c in b.cards] for row in table.seats for b in row.sets] == [
            a.cards for assets in st.assets for a in assets]
        assert [row.total for row in table.seats] == [f"{p} points" for p in st.scores()]
