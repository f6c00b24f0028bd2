"""The designer's lab: simulate, audit, compare and puzzles for game designers."""
