"""Flipsiders: Checkered Flag: a two-car race with gear boxes, spinners, crashes and no-passing
zones. Rules in :mod:`.rules`, notation and action ids in :mod:`.notation`, tracks and spinners
(JSON data files under ``data/``) in :mod:`.tracks`, the text picture in :mod:`.render`.

>>> from flipgames import make
>>> make("checkered-flag").title
'Flipsiders: Checkered Flag'
"""
