"""Flip Switch: flip face-down tiles and switch neighbours to line up three of a shape.

The registry loads :class:`flipgames.games.flip_switch.rules.FlipSwitch` as ``flip-switch``.
"""
