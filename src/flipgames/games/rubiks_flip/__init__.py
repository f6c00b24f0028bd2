"""Rubik's Flip: place double-sided tiles, flip the opponent's, make a locked row of three.

See ``docs/games/rubiks-flip.md`` for the rules as implemented, the notation and the options.
"""

from flipgames.games.rubiks_flip.rules import RubiksFlip, RubiksFlipState

__all__ = ["RubiksFlip", "RubiksFlipState"]
