"""Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system"), as lichess uses them:
new players start at 1500 with a rating deviation (RD) of 350 and a volatility of 0.06, the
system constant tau is 0.5, and each game is its own rating period (so a player's RD shrinks
with every game they play and only one result goes into each update).

Ratings are kept on the Glicko scale (1500, 350); the update works on Glicko-2's scale
(``(r - 1500) / 173.7178``) as the paper does, step by step.

>>> winner, loser = Rating(), Rating()
>>> won, lost = update(winner, [(loser, 1.0)]), update(loser, [(winner, 0.0)])
>>> round(won.rating, 1), round(lost.rating, 1), round(won.rd, 1)
(1662.3, 1337.7, 290.3)
>>> won.provisional
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The paper's conversion factor between the Glicko and Glicko-2 scales (400 / ln 10).
SCALE = 173.7178
#: A new player's rating, RD and volatility (lichess's and the paper's defaults).
START_RATING = 1500.0
START_RD = 350.0
START_VOLATILITY = 0.06
#: The system constant: how much the volatility may change in one period (the paper suggests
#: 0.3 to 1.2; lichess uses 0.5).
TAU = 0.5
#: A rating whose RD is above this is provisional: too few games to trust it (lichess's line).
PROVISIONAL_RD = 110.0
#: The Illinois iteration stops when the volatility's bracket is this narrow (the paper's).
EPSILON = 0.000001


@dataclass(frozen=True)
class Rating:
    """A player's rating on the Glicko scale, its deviation and volatility.

    >>> Rating()
    Rating(rating=1500.0, rd=350.0, volatility=0.06)
    """

    rating: float = START_RATING
    rd: float = START_RD
    volatility: float = START_VOLATILITY

    @property
    def provisional(self) -> bool:
        """Too uncertain to be trusted yet (shown with a "?")."""
        return self.rd > PROVISIONAL_RD


def _g(phi: float) -> float:
    """The paper's g: how much an opponent's uncertainty damps what a result says."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    """The expected score against an opponent at ``mu_j`` with deviation ``phi_j``."""
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """The new volatility: the root of the paper's f(x) found by the Illinois algorithm
    (step 5 of the paper, a regula falsi that halves the stale end's value)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        top = ex * (delta * delta - phi * phi - v - ex)
        bottom = 2.0 * (phi * phi + v + ex) ** 2
        return top / bottom - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def update(player: Rating, results: Sequence[tuple[Rating, float]], *, tau: float = TAU) -> Rating:
    """``player``'s rating after one rating period with ``results``: each an opponent's
    rating before the period and the player's score against them (1 a win, 0.5 a draw, 0 a
    loss). With no results only the RD grows (the paper's step 6 alone).

    Glickman's worked example (1500/200 against 1400/30, 1550/100 and 1700/300):

    >>> after = update(
    ...     Rating(1500, 200),
    ...     [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)],
    ... )
    >>> round(after.rating, 2), round(after.rd, 2), round(after.volatility, 6)
    (1464.05, 151.52, 0.059996)
    """
    mu = (player.rating - START_RATING) / SCALE
    phi = player.rd / SCALE
    sigma = player.volatility
    if not results:
        return Rating(player.rating, SCALE * math.sqrt(phi * phi + sigma * sigma), sigma)
    opponents = [
        ((o.rating - START_RATING) / SCALE, o.rd / SCALE, float(score)) for o, score in results
    ]
    # Steps 3 and 4: the estimated variance from the results, and the improvement they show.
    inverse_v = 0.0
    gain = 0.0
    for mu_j, phi_j, score in opponents:
        g = _g(phi_j)
        e = _expected(mu, mu_j, phi_j)
        inverse_v += g * g * e * (1.0 - e)
        gain += g * (score - e)
    v = 1.0 / inverse_v
    delta = v * gain
    # Steps 5 to 7: the new volatility, the RD grown by it, then narrowed by the results.
    new_sigma = _volatility(sigma, phi, v, delta, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * gain
    # Step 8: back to the Glicko scale.
    return Rating(SCALE * new_mu + START_RATING, SCALE * new_phi, new_sigma)


def game(first: Rating, second: Rating, score: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game, its own rating period: ``score`` is the first
    player's (1, 0.5 or 0).

    >>> a, b = game(Rating(), Rating(), 0.5)
    >>> round(a.rating, 1) == round(b.rating, 1) == 1500.0
    True
    """
    return update(first, [(second, score)]), update(second, [(first, 1.0 - score)])
