"""FlipFour: four in a row with pieces that flip between rook and bishop (5x5, drops and moves).

>>> from flipgames import make
>>> make("flipfour").title
'FlipFour'
"""
