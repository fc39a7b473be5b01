"""The computer's doubling-cube decisions in short nardy (backgammon): double or roll, take or pass.

`cube_decision(game, level, rng)` answers for the side whose action the game waits for: in Phase.ROLL,
when `game.may_double()`, the side on turn ("double" or "roll"); in Phase.CUBE, the side offered the
double, `game.deciding` ("take" or "pass"). Everything is seen from the side on turn (`game.turn`, the
doubler in Phase.CUBE), as bgsage sees a pre-roll position: `short_net.bgsage_board(game.position)`;
the cube's owner is CENTERED, PLAYER (the side on turn) or OPPONENT, and a match's away scores are
`away1 = needs[game.turn]`, `away2 = needs[game.turn.other]` (0, 0 for money play).

The model is bgsage's (MPL-2.0), at three depths:

- expert: `bgbot_cpp.cube_decision_nply_unified` at EXPERT_PLIES (3) plies with bgsage's production
  network and its one-sided bear-off database. It evaluates No double, Double/take and Double/pass
  cubefully: the cube decisions inside the search are modelled recursively and the leaves (1-ply) are
  turned from cubeless into cubeful equities by Janowski's interpolation with bgsage's cube efficiency
  (`cube_efficiency`: x = 0.68 in contact, 0.6-0.7 by the average pip count in a race). Money play
  uses cubeful money equity (the Jacoby rule when the cube says so; no beavers, cube capped at 64);
  match play uses match winning chances from bgsage's built-in match equity table (`get_met`; bgsage
  does not name its source: 0.677 for 1-away against 2-away before the Crawford game is over, 0.512
  post-Crawford), the Crawford game from `cube.crawford` and post-Crawford play when one side is
  1-away otherwise, with bgsage's dead-cube and automatic-redouble handling. 3 plies is the deepest
  that keeps a decision near the 150 ms aim on this two-core machine (measured over 380 positions of
  self-play: median 56 ms, p90 121 ms, p99 159 ms, max 172 ms, a third of it loading bgsage's
  weights, which its cube API does on every call; 2 plies: median 37, p99 48 ms; 4 plies: 0.6-2 s).
  Most positions skip the search: when the 1-ply verdict is no double by EXPERT_SKIP_MARGIN or more,
  the expert rolls at once (under a millisecond); a take is always searched. Ties between No double
  and Double/pass with a pass due (a certain win without gammons) are cashed: see CubeAnalysis.cashes.
- intermediate: the same cubeful model from the 1-ply cubeless probabilities only (the network plus
  the bear-off database, then `cube_decision_1ply`: Janowski with the same cube efficiency and the
  same match equity table). No search: under a millisecond, and it misjudges positions whose
  chances swing with the next rolls (volatile, blitz and last-roll positions).
- beginner: a threshold rule of thumb from the same 1-ply cubeless chances, the way a casual player
  thinks: double with about 68 % to win (not when so far ahead that a gammon is likely: 88 % and 35 %
  gammons, then play on), take with about 28 % plus half the chance of losing a gammon; each threshold
  blurred by Gaussian noise (sd 0.03) from `rng`. It ignores cube ownership and the match score
  (beyond the rules: it never doubles when the cube's rules forbid it).

Deterministic for a given rng (only the beginner draws from it). Importing this module does no work:
bgsage's network and bear-off database are loaded on first use (once per process).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.errors import CubeError, WrongPhaseError
from engine.game import Game, Phase

EXPERT_PLIES = 3  # cube_decision_nply_unified's depth for the expert (see the module's docstring)
# The expert skips the search when the 1-ply verdict is no double by at least this much equity
# (min(Double/take, Double/pass) - No double, in units of the cube): such positions are never doubles
# at 3 plies (0 of 2,584 positions met in self-play, money and match, differed with 0.15).
EXPERT_SKIP_MARGIN = 0.25
CASH_TOLERANCE = 1e-4  # No double and Double/pass this close are a tie: see CubeAnalysis.cashes
MAX_CUBE_VALUE = 64  # engine.cube.MAX_CUBE: bgsage must not count on a redouble past it

ROLL_ACTIONS = ("double", "roll")
CUBE_ACTIONS = ("take", "pass")

# The beginner's rule of thumb (see the module's docstring).
BEGINNER_DOUBLE = 0.68
BEGINNER_PLAY_ON = (0.88, 0.35)  # win and gammon chances at which it plays on for the gammon
BEGINNER_TAKE = 0.28
BEGINNER_TAKE_GAMMON_WEIGHT = 0.5
BEGINNER_NOISE = 0.03


@dataclass(frozen=True, slots=True)
class CubeView:
    """A cube decision as bgsage takes it: the pre-roll board from the side on turn, the cube's value
    and owner ("centered", "player" = the side on turn, "opponent"), the match's away scores (0, 0:
    money), the Crawford game and the Jacoby rule."""

    board: tuple[int, ...]
    cube_value: int
    owner: str
    away1: int = 0
    away2: int = 0
    crawford: bool = False
    jacoby: bool = False

    @classmethod
    def of(cls, game: Game) -> CubeView:
        """The view of `game`'s pending cube decision (Phase.ROLL or Phase.CUBE, from game.turn)."""
        from engine.ai.short_net import bgsage_board

        cube = game.cube
        if cube is None:
            raise CubeError(f"this game is played without the cube ({game.rules.describe(game.position)})")
        owner = "centered" if cube.owner is None else "player" if cube.owner is game.turn else "opponent"
        away1, away2 = (cube.needs[game.turn], cube.needs[game.turn.other]) if cube.needs else (0, 0)
        return cls(
            board=tuple(bgsage_board(game.position)),
            cube_value=cube.value,
            owner=owner,
            away1=away1,
            away2=away2,
            crawford=cube.crawford,
            jacoby=cube.jacoby,
        )


@dataclass(frozen=True, slots=True)
class CubeAnalysis:
    """bgsage's verdict, from the side on roll: pre-roll cubeless chances [win, win gammon, win
    backgammon, lose gammon, lose backgammon], cubeful equities of No double, Double/take and
    Double/pass (money: in units of the current cube; match: bgsage's match-equity scale), and its
    two decisions (the side on roll should double; the opponent should take)."""

    probs: tuple[float, float, float, float, float]
    equity_nd: float
    equity_dt: float
    equity_dp: float
    should_double: bool
    should_take: bool
    plies: int

    @property
    def cashes(self) -> bool:
        """A pass is due and playing on is worth no more than cashing (ties within CASH_TOLERANCE, e.g. a
        certain win without gammons): bgsage leaves such ties undoubled; the computer cashes, as a
        person (and GNU Backgammon) would."""
        return not self.should_take and abs(self.equity_nd - self.equity_dp) <= CASH_TOLERANCE

    @property
    def doubles(self) -> bool:
        """The side on roll doubles: bgsage says so, or it cashes a tie."""
        return self.should_double or self.cashes

    @property
    def action(self) -> str:
        """The reference-style name: "no double, take", "double, take", "double, pass" or "too good,
        pass" (no double because No double beats Double/pass: playing on for a gammon)."""
        if self.doubles:
            return "double, take" if self.should_take else "double, pass"
        return "no double, take" if self.should_take else "too good, pass"


@cache
def _bgsage() -> tuple[Any, Any, Any]:
    """(the weights' config, the bear-off database, the 1-ply strategy with the database): loaded once."""
    import bgbot_cpp
    from bgsage.weights import bearoff_db_path, default_weights

    weights = default_weights()
    database = None
    path = bearoff_db_path()
    if path is not None:
        database = bgbot_cpp.BearoffDB()
        if not database.load(path):
            database = None
    strategy = bgbot_cpp.create_strategy(
        weights.strategy_type, weights.weight_paths_list, weights.hidden_sizes_list
    )
    if database is not None:
        strategy = bgbot_cpp.BearoffStrategy(strategy, database)
    return weights, database, strategy


def _owner(view: CubeView) -> Any:
    import bgbot_cpp

    return {
        "centered": bgbot_cpp.CubeOwner.CENTERED,
        "player": bgbot_cpp.CubeOwner.PLAYER,
        "opponent": bgbot_cpp.CubeOwner.OPPONENT,
    }[view.owner]


def pre_roll_probs(view: CubeView) -> tuple[float, float, float, float, float]:
    """The side on roll's cubeless chances by bgsage's network (and bear-off database), 1-ply: the
    board is seen by the network as the opponent's just-moved position, and the chances inverted."""
    import bgbot_cpp

    _, _, strategy = _bgsage()
    flipped = list(bgbot_cpp.flip_board(list(view.board)))
    theirs = strategy.evaluate_board(flipped, flipped)["probs"]
    win, wg, wbg, lg, lbg = (float(p) for p in bgbot_cpp.invert_probs_py(list(theirs)))
    return (win, wg, wbg, lg, lbg)


def analyse(view: CubeView, plies: int) -> CubeAnalysis:
    """bgsage's cube analysis of `view` at `plies` (1: cubeless 1-ply chances and Janowski; 2 or more:
    cube_decision_nply_unified's search)."""
    import bgbot_cpp

    if plies < 1:
        raise ValueError(f"cube analysis needs at least 1 ply, not {plies}")
    weights, database, _ = _bgsage()
    match = {"away1": view.away1, "away2": view.away2, "is_crawford": view.crawford}
    jacoby = view.jacoby and view.away1 == 0
    if plies == 1:
        probs = pre_roll_probs(view)
        pips = bgbot_cpp.pip_counts(list(view.board))
        x = bgbot_cpp.cube_efficiency(list(probs), bgbot_cpp.is_race(list(view.board)), pips[0], pips[1])
        d = bgbot_cpp.cube_decision_1ply(
            list(probs), view.cube_value, _owner(view), x, view.away1, view.away2, view.crawford, jacoby
        )
        return CubeAnalysis(
            probs, d.equity_nd, d.equity_dt, d.equity_dp, bool(d.should_double), bool(d.should_take), 1
        )
    r = bgbot_cpp.cube_decision_nply_unified(
        list(view.board),
        view.cube_value,
        _owner(view),
        plies,
        weights.strategy_type,
        weights.weight_paths_list,
        weights.hidden_sizes_list,
        n_threads=1,
        jacoby=jacoby,
        beaver=False,
        max_cube_value=MAX_CUBE_VALUE,
        bearoff_db=database,
        **match,
    )
    win, wg, wbg, lg, lbg = (float(p) for p in r["probs"])
    return CubeAnalysis(
        (win, wg, wbg, lg, lbg),
        float(r["equity_nd"]),
        float(r["equity_dt"]),
        float(r["equity_dp"]),
        bool(r["should_double"]),
        bool(r["should_take"]),
        plies,
    )


def _beginner(game: Game, view: CubeView, rng: random.Random) -> str:
    win, gammon, _, _, _ = pre_roll_probs(view)  # the side on turn's (the doubler's)
    if game.phase is Phase.ROLL:
        play_on_win, play_on_gammon = BEGINNER_PLAY_ON
        if win >= play_on_win and gammon >= play_on_gammon:
            return "roll"
        return "double" if win >= BEGINNER_DOUBLE + rng.gauss(0.0, BEGINNER_NOISE) else "roll"
    taker_win, taker_loses_gammon = 1.0 - win, gammon
    needed = BEGINNER_TAKE + BEGINNER_TAKE_GAMMON_WEIGHT * taker_loses_gammon
    return "take" if taker_win >= needed + rng.gauss(0.0, BEGINNER_NOISE) else "pass"


LEVEL_PLIES = {"intermediate": 1, "expert": EXPERT_PLIES}


def cube_decision(game: Game, level: str, rng: random.Random) -> str:
    """The computer's cube action at `level` ("beginner", "intermediate", "expert"): "double" or
    "roll" for game.turn in Phase.ROLL (when it may double), "take" or "pass" for game.deciding in
    Phase.CUBE. WrongPhaseError in any other phase, CubeError when the side on turn may not double."""
    if level != "beginner" and level not in LEVEL_PLIES:
        raise ValueError(f"unknown level {level!r}; levels: beginner, {', '.join(LEVEL_PLIES)}")
    if game.phase is Phase.ROLL:
        if not game.may_double():
            why = "no cube" if game.cube is None else f"cube {game.cube.to_json()}"
            raise CubeError(
                f"{game.turn.label} may not double ({why}), so there is no cube decision to make "
                f"in {game.rules.describe(game.position)}"
            )
    elif game.phase is not Phase.CUBE:
        raise WrongPhaseError(
            f"no cube decision in phase {game.phase.value} (expected roll or cube) "
            f"in {game.rules.describe(game.position)}"
        )
    view = CubeView.of(game)
    if level == "beginner":
        return _beginner(game, view, rng)
    verdict = analyse(view, 1)
    if LEVEL_PLIES[level] > 1 and not (game.phase is Phase.ROLL and _clearly_no_double(verdict)):
        verdict = analyse(view, LEVEL_PLIES[level])
    if game.phase is Phase.ROLL:
        return "double" if verdict.doubles else "roll"
    return "take" if verdict.should_take else "pass"


def _clearly_no_double(verdict: CubeAnalysis) -> bool:
    """The 1-ply verdict is no double, and doubling is worse than waiting by EXPERT_SKIP_MARGIN."""
    if verdict.doubles:
        return False
    return min(verdict.equity_dt, verdict.equity_dp) - verdict.equity_nd < -EXPERT_SKIP_MARGIN
