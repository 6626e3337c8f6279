"""The HTML replay of ``cya-sim play --html`` in a real headless browser (issue 32, item 4).

Chromium and its driver (Debian: ``apt-get install chromium chromium-driver``) with ``selenium`` (the ``test``
extra) open the file from disk, step through a game of each family with the buttons and the arrow keys, and
check the counter, the log line and the drawn table against the same game played again through the
environments' :class:`~cya_sim.env.game.EnvGame`. Skipped, saying what is missing, where no browser, driver
or selenium is installed.
"""

from __future__ import annotations

import shutil
import time

import pytest

import agents  # noqa: F401  (the agents package imports the engine first)
from cya_sim.cli.main import main
from cya_sim.env.game import EnvGame
from cya_sim.game.rules import get_rules
from cya_sim.play.families import family_of

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e '.[test]')")

BROWSER = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    BROWSER is None or DRIVER is None,
    reason="no headless browser: install chromium and chromium-driver (Debian: apt-get install chromium "
           "chromium-driver) to run the HTML replay in a browser")


@pytest.fixture(scope="module")
def browser():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = BROWSER
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1100,950"):
        opts.add_argument(a)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield driver
    driver.quit()


def _open(driver, path) -> None:
    driver.get(path.as_uri())
    for _ in range(200):  # the page unpacks its data asynchronously (DecompressionStream)
        if driver.find_element("tag name", "body").get_attribute("data-ready") == "1":
            return
        time.sleep(0.02)
    raise AssertionError("the replay page never became ready: " + driver.find_element("id", "log").text)


def _texts(driver) -> str:
    return " ".join(e.get_attribute("textContent") for e in driver.find_elements("css selector", "#table svg text"))


def _state_after(rules_name: str, players: int, agent: str, seed: int, game: int, steps: int):
    rules = get_rules(rules_name)
    fam = family_of(rules)
    g = EnvGame(rules, players, [agent] * players)
    g.start(seed, game)
    seats = [fam.make_agent(agent) for _ in range(players)]
    for _ in range(steps):
        s = g.to_act
        g.step(seats[s].act(g.observe(s), g.seat_rngs[s]))
    return g.state


@pytest.mark.parametrize(("rules", "players", "seed", "game", "options"), [
    ("classic", 3, 5, 0, ["--option", "max_rounds=1"]), ("theft", 2, 4, 2, [])])
def test_the_replay_steps_through_the_game_in_headless_chromium(browser, tmp_path, capsys, rules, players, seed,
                                                                 game, options):
    out = tmp_path / "replay.html"
    argv = ["play", "--rules", rules, "--players", str(players), "--agents", "greedy", "--seed", str(seed),
            "--game", str(game), *options]
    assert main([*argv, "--html", str(out)]) == 0
    log = capsys.readouterr().out.splitlines()
    d = browser
    _open(d, out)
    n = int(d.find_element("id", "counter").text.split("/ ")[1])
    assert d.find_element("id", "counter").text == f"step 0 / {n}"
    assert d.find_element("id", "log").text.splitlines()[0] == log[0]  # the deal: the log's first line
    for _ in range(3):
        d.find_element("id", "next").click()
    assert d.find_element("id", "counter").text == f"step 3 / {n}"
    shown = d.find_element("id", "log").text.splitlines()
    assert shown and all(line in log for line in shown)
    state = _state_after(rules, players, "greedy", seed, game, 3)  # the cap does not matter 3 actions in
    words = _texts(d)
    assert f"seat {state.to_act} to act" in words and f"seat {state.to_act}'s view" in words
    assert f"{len(state.draw_pile)} cards" in words and "(unseen)" in words  # the other hands are counts
    d.find_element("id", "view").click()
    assert d.find_element("id", "which").text == "full view"
    words = _texts(d)
    assert "full view" in words and "(unseen)" not in words
    d.find_element("tag name", "body").send_keys("\ue010")  # End
    assert d.find_element("id", "counter").text == f"step {n} / {n}"
    last = d.find_element("id", "log").text.splitlines()[-1]
    assert last == log[-1] and last.startswith("game over")
    d.find_element("tag name", "body").send_keys("\ue012")  # ArrowLeft
    assert d.find_element("id", "counter").text == f"step {n - 1} / {n}"
    d.find_element("id", "first").click()
    assert d.find_element("id", "counter").text == f"step 0 / {n}"
    d.save_screenshot(str(tmp_path / "replay.png"))  # looked at by hand when the note's figures were made
