"""FlipFlop 5x5 and 3x3: two-faced pieces that move like a rook or a bishop and flip.

>>> from flipgames import make
>>> make("flipflop").title, make("flipflop-3x3").title
('FlipFlop', 'FlipFlop 3x3')
"""
