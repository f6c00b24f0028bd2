"""Health, and the games: the catalogue the lobby draws and each game's rules."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from flipgames.core.manifest import manifest_for
from flipgames.core.registry import game_names
from flipgames.web import schemas
from flipgames.web.routes.common import Service, responses

router = APIRouter()


@router.get("/healthz", response_class=PlainTextResponse)
def healthz() -> str:
    """Liveness: answers ``ok``."""
    return "ok"


@router.get("/api/games")
def list_games(service: Service) -> list[schemas.GameInfo]:
    """Every game with its players, options, AI levels and whether it is solved."""
    games = []
    for name in game_names():
        game = service.game(name)
        manifest = manifest_for(name)
        options = [
            schemas.OptionInfo(
                name=o.name,
                default=o.default,
                choices=list(o.choices) if o.choices is not None else None,
                minimum=o.minimum,
                maximum=o.maximum,
                help=o.help,
                label=o.title(),
                choice_words=[o.words(c) for c in o.choices] if o.choices is not None else None,
            )
            for o in game.option_spec
        ]
        games.append(
            schemas.GameInfo(
                name=name,
                title=game.title,
                board=manifest.board,
                pitch=manifest.pitch,
                art=manifest.art,
                players=list(game.player_names),
                has_chance=game.has_chance,
                options=options,
                levels=service.solutions.levels(game),
                solved=service.solutions.ready(game),
                lesson=manifest.lesson is not None,
                engines=[e.name for e in service.engines.values() if name in e.games],
            )
        )
    return games


@router.get("/api/games/{name}/rules", responses=responses(404))
def game_rules(name: str, service: Service) -> schemas.RulesInfo:
    """The rules as flipgames plays them (default options)."""
    game = service.game(name)
    return schemas.RulesInfo(name=game.name, title=game.title, text=game.rules_summary())
