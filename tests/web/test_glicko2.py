"""Glicko-2 against Glickman's worked example and the arcade's one-game figures."""

from __future__ import annotations

import pytest

from flipgames.web.community.glicko2 import (
    SCALE,
    START_RATING,
    Rating,
    game,
    update,
)


def test_glickmans_worked_example() -> None:
    """The paper's example: 1500/200 (volatility 0.06) beats 1400/30 and loses to 1550/100 and
    1700/300. The paper prints its Glicko-2 results to four decimals (mu' -0.2069, phi'
    0.8722, sigma' 0.05999) and converts those rounded values to 1464.06 / 151.52. Computed
    without rounding on the way the rating is 1464.0507 and the volatility 0.0599960, so each
    is compared with the paper's figure to within the paper's rounding."""
    after = update(
        Rating(1500, 200),
        [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)],
    )
    assert round((after.rating - START_RATING) / SCALE, 4) == -0.2069
    assert round(after.rd / SCALE, 4) == 0.8722
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert round(after.rd, 2) == 151.52


def test_one_game_between_two_new_players() -> None:
    winner, loser = game(Rating(), Rating(), 1.0)
    assert (round(winner.rating, 1), round(loser.rating, 1)) == (1662.3, 1337.7)
    assert round(winner.rd, 1) == round(loser.rd, 1) == 290.3
    assert winner.provisional and loser.provisional


def test_a_draw_between_equals_moves_neither_rating_and_narrows_both_rds() -> None:
    first, second = game(Rating(), Rating(), 0.5)
    assert first.rating == pytest.approx(1500.0) and second.rating == pytest.approx(1500.0)
    assert first.rd < 350.0 and first.rd == pytest.approx(second.rd)


def test_a_draw_against_a_stronger_player_gains_rating() -> None:
    weaker, stronger = game(Rating(1400, 80), Rating(1700, 80), 0.5)
    assert weaker.rating > 1400 and stronger.rating < 1700


def test_an_upset_moves_more_than_an_expected_result() -> None:
    upset, _ = game(Rating(1400, 80), Rating(1700, 80), 1.0)
    expected, _ = game(Rating(1700, 80), Rating(1400, 80), 1.0)
    assert upset.rating - 1400 > expected.rating - 1700 > 0


def test_ratings_are_provisional_above_rd_110() -> None:
    assert Rating(1500, 110.5).provisional
    assert not Rating(1500, 110.0).provisional


def test_a_period_without_games_only_widens_the_rd() -> None:
    after = update(Rating(1600, 100, 0.06), [])
    assert after.rating == 1600 and after.volatility == 0.06
    assert after.rd == pytest.approx(SCALE * ((100 / SCALE) ** 2 + 0.06**2) ** 0.5)


def test_many_games_settle_the_rd_below_the_provisional_line() -> None:
    player, opponent = Rating(), Rating()
    for number in range(30):
        player, opponent = game(player, opponent, 1.0 if number % 2 else 0.0)
    assert not player.provisional
    assert player.rating == pytest.approx(1500, abs=60)


def test_a_surprising_result_for_a_settled_player_raises_the_volatility() -> None:
    settled = Rating(1500, 50, 0.06)
    after = update(settled, [(Rating(2200, 50), 1.0)])
    assert after.volatility > 0.06
