"""Post-game analysis and hints: how much equity each play gave away against the computer's best play.

Every unforced play of a game's record is judged the way the computer's "expert" level chooses: all
legal plays scored by the quick evaluator, then the leading candidates (the expert's own candidates,
at least the top three, and always the play made) scored again by the deeper one; the best of those is
"the best play" and the loss of a play is best − made (≥ 0). Forced plays (one distinct outcome, a pass
included) are skipped, as GNU Backgammon does.

The unit is equity: expected points per game for the side that has just played, cubeless, before the
opponent's roll; a finished game counts its points exactly (1, 2 or 3).
- Short nardy: bgsage's network (raw net to screen, its 2-ply search for the candidates); its equity
  is gnubg's cubeless money equity  P(win) − P(lose) + P(gammon won) − P(gammon lost)
  + P(backgammon won) − P(backgammon lost), in −3..3.
- Long nardy: the project's linear score (long_eval.py; −1 per 10 pips, so 1 unit ≈ 10 pips), screened
  at 1-ply and deepened by the expert's lookahead over the opponent's 21 rolls, mapped to equity by
  `long_equity(v) = 2·tanh(v / 18)` in −2..2 (mars counted 2; koks, an option, not). The curve was fitted
  by least squares to the signed points of 300 self-played games (intermediate level, 28 637 positions
  after a play, 23 % of them in games won by a mars; `bench/analysis.py --calibrate 300` redoes it;
  other seed sets give 18..20): near 0 a pip is worth about 0.01, as in backgammon. The hint's win
  chance for long nardy is an estimate fitted the same way: P(win) = 1 / (1 + exp(0.08 − 0.16·v)).

What each side gets (`SideReview`) follows GNU Backgammon's chequer-play statistics: unforced moves,
the total and mean equity loss, the error rate in millipoints per unforced move ("Error rate mEMG":
1000 × total loss / unforced moves, money play, so EMG = equity), and the moves it marks with
gnubg's default thresholds (gnubg.c `arSkillLevel`): doubtful ?! (loss ≥ 0.04), bad ? (≥ 0.08, what
we call an error), very bad ?? (≥ 0.16, a blunder); each play gets the one mark of its band.

The work is one independent task per turn: `review_turns(game, start, stop)` judges a range of turns
(so the bot may split a game over worker processes) and `summarise(game, reviews)` puts the pieces
together; `analyse(game)` does both in one call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from engine.ai.long_eval import LinearEvaluator, shipped_weights
from engine.ai.player import WIN_VALUE, Evaluator, LookaheadEvaluator, score_plays
from engine.ai.short_net import NetEvaluator, net_probabilities
from engine.dice import Dice
from engine.errors import WrongPhaseError
from engine.game import Game, Phase
from engine.moves import Play
from engine.position import Position
from engine.rules import Rules
from engine.sides import Side

# GNU Backgammon's default skill thresholds (gnubg.c arSkillLevel), in equity.
DOUBTFUL = 0.04
BAD = 0.08
VERY_BAD = 0.16
# How many worst plays each side's review keeps, and how many plays a hint lists.
WORST = 3
TOP = 3
# Long nardy's equity curve and win-chance estimate (fitted to self-play, see the module's docstring).
LONG_EQUITY_SCALE = 18.0
LONG_WIN_SLOPE = 0.16
LONG_WIN_BIAS = -0.08

DEPTHS: tuple[str, ...] = ("expert", "quick")

Progress = Callable[[int, int], None]


def long_equity(value: float) -> float:
    """Long nardy's evaluator value (from the side that just moved) as expected points, in −2..2."""
    return 2.0 * math.tanh(value / LONG_EQUITY_SCALE)


def long_win_chance(value: float) -> float:
    """An estimate of the mover's chance to win from the evaluator's value after its play (logistic fit
    to self-play outcomes; the small negative bias is the opponent's being on roll)."""
    return 1.0 / (1.0 + math.exp(-(LONG_WIN_BIAS + LONG_WIN_SLOPE * value)))


def _short_win_chance(before: Position, after: Position, value: float) -> float:
    return net_probabilities(before, after)[0]


def _long_win_chance(before: Position, after: Position, value: float) -> float:
    return long_win_chance(value)


@dataclass(frozen=True)
class Judge:
    """How one game's plays are judged: a `screen` evaluator for every legal play, an optional `deep`
    one for the leading `candidates` (within `margin` of the best screened play, and at least the top
    TOP), the map from the evaluator's values to equity, and the mover's win chance after a play."""

    screen: Evaluator
    deep: Evaluator | None
    candidates: int
    margin: float
    to_equity: Callable[[float], float]
    win_chance: Callable[[Position, Position, float], float]
    scale: str


def _short(depth: str) -> Judge:
    return Judge(
        NetEvaluator(),
        NetEvaluator(plies=2) if depth == "expert" else None,
        4,
        0.12,
        float,
        _short_win_chance,
        "cubeless money equity from bgsage's net (−3..3)",
    )


def _long(depth: str) -> Judge:
    linear = LinearEvaluator(shipped_weights("expert"))
    return Judge(
        linear,
        LookaheadEvaluator(linear) if depth == "expert" else None,
        3,
        float("inf"),
        long_equity,
        _long_win_chance,
        "expected points, 2·tanh(score/18) of the long evaluator's score (−2..2)",
    )


_JUDGES: dict[str, Callable[[str], Judge]] = {"short": _short, "long": _long}


@cache
def judge_for(game: str, depth: str = "expert") -> Judge:
    """The judge of `game` at `depth`: "expert" (the expert level's search) or "quick" (screen only)."""
    if game not in _JUDGES:
        raise ValueError(f"no analysis for game {game!r}; games: {', '.join(_JUDGES)}")
    if depth not in DEPTHS:
        raise ValueError(f"unknown analysis depth {depth!r}; depths: {', '.join(DEPTHS)}")
    return _JUDGES[game](depth)


# ----- values ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlayOption:
    """One candidate play with its equity for the mover (and the mover's estimated chance to win)."""

    play: Play
    equity: float
    win_chance: float


@dataclass(frozen=True, slots=True)
class PlayReview:
    """One unforced play of the record: `turn` is its 1-based index in the record's turns, `position` the
    position before it (X = `side`, the mover), `play` the play made and `best` the best one found."""

    turn: int
    side: Side
    dice: Dice
    position: Position
    play: Play
    best: Play
    equity: float
    best_equity: float

    @property
    def loss(self) -> float:
        return self.best_equity - self.equity

    @property
    def mark(self) -> str:
        """GNU Backgammon's mark: "??" very bad, "?" bad, "?!" doubtful, "" none."""
        loss = self.loss
        return "??" if loss >= VERY_BAD else "?" if loss >= BAD else "?!" if loss >= DOUBTFUL else ""

    def __str__(self) -> str:
        return (
            f"turn {self.turn} {self.side.label} {self.dice.a}-{self.dice.b}: {self.play} ({self.equity:+.3f})"
            f", best {self.best} ({self.best_equity:+.3f}), loss {self.loss:.3f}{self.mark}"
        )


@dataclass(frozen=True, slots=True)
class SideReview:
    """One side's figures, as GNU Backgammon's chequer-play statistics.

    `moves`: every turn it played; `decisions`: the unforced ones (the rest were forced or passes);
    `error_rate`: 1000 × total_loss / decisions (gnubg's "Error rate mEMG", money equity);
    `doubtful`, `errors`, `blunders`: plays marked ?! (loss in [0.04, 0.08)), ? ([0.08, 0.16)),
    ?? (≥ 0.16); `worst`: its WORST largest losses among plays that lost anything, worst first."""

    side: Side
    moves: int
    decisions: int
    total_loss: float
    doubtful: int
    errors: int
    blunders: int
    worst: tuple[PlayReview, ...]

    @property
    def mean_loss(self) -> float:
        return self.total_loss / self.decisions if self.decisions else 0.0

    @property
    def error_rate(self) -> float:
        return 1000.0 * self.mean_loss

    @property
    def forced(self) -> int:
        return self.moves - self.decisions


@dataclass(frozen=True, slots=True)
class Analysis:
    """A game's analysis: every unforced play reviewed, in record order, and each side's figures."""

    game: str
    depth: str
    scale: str
    plays: tuple[PlayReview, ...]
    white: SideReview
    black: SideReview

    def side(self, side: Side) -> SideReview:
        return self.white if side is Side.WHITE else self.black


@dataclass(frozen=True, slots=True)
class Hint:
    """The best plays for the side on turn (best first, at most TOP) and its chance to win after the best
    one (short: bgsage's raw net; long: the estimate `long_win_chance`)."""

    side: Side
    dice: Dice
    options: tuple[PlayOption, ...]

    @property
    def best(self) -> Play:
        return self.options[0].play

    @property
    def win_chance(self) -> float:
        return self.options[0].win_chance


# ----- judging one turn -----------------------------------------------------------------------------


def _ranked(
    judge: Judge, rules: Rules, position: Position, plays: Sequence[Play]
) -> tuple[list[int], list[float]]:
    """The candidates' indices, best screened first, and every play's screen score."""
    scores = score_plays(rules, judge.screen, position, plays)
    order = sorted(range(len(plays)), key=lambda i: (-scores[i], i))
    top = scores[order[0]]
    wanted = max(judge.candidates, TOP)
    chosen = [i for n, i in enumerate(order[:wanted]) if n < TOP or scores[i] >= top - judge.margin]
    return chosen, scores


def _equities(
    judge: Judge,
    rules: Rules,
    position: Position,
    plays: Sequence[Play],
    pool: Sequence[int],
    scores: Sequence[float],
) -> dict[int, tuple[float, float]]:
    """(equity, evaluator value) of each play in `pool`, by the deep evaluator when there is one."""
    values = {i: scores[i] for i in pool}
    if judge.deep is not None:
        open_ = [i for i in pool if scores[i] < WIN_VALUE]
        if open_:
            for i, v in zip(open_, judge.deep.values(rules, position, [plays[i].position for i in open_])):
                values[i] = v
    return {i: ((v - WIN_VALUE) if v >= WIN_VALUE else judge.to_equity(v), v) for i, v in values.items()}


def _best(pool: Sequence[int], equities: dict[int, tuple[float, float]]) -> int:
    """The first play of `pool` (screen order) with the highest equity."""
    return max(pool, key=lambda i: (equities[i][0], -pool.index(i)))


def review_play(
    judge: Judge, rules: Rules, position: Position, dice: Dice, play: Play
) -> tuple[Play, float, float] | None:
    """(best play, its equity, the made play's equity) for `play` with `dice` in `position`; None when
    the play was forced (one distinct legal outcome, a pass included)."""
    plays = rules.legal_plays(position, dice)
    if len(plays) == 1:
        return None
    made = plays.index(play)  # Play equality is by the resulting position
    pool, scores = _ranked(judge, rules, position, plays)
    if made not in pool:
        pool.append(made)
    equities = _equities(judge, rules, position, plays, pool, scores)
    best = _best(pool, equities)
    if equities[made][0] >= equities[best][0]:
        best = made  # the play made is (one of) the best: no loss
    return plays[best], equities[best][0], equities[made][0]


# ----- whole games ----------------------------------------------------------------------------------


def _turns(game: Game) -> Iterator[tuple[int, Side, Dice, Position, Play]]:
    """(1-based turn, mover, dice, position before, play) for each turn of the game's record, replayed."""
    replay = Game.new(game.game, game.rules.options, game.starter)
    for white_die, black_die in game.opening_rolls:
        replay = replay.opening_roll(white_die, black_die)
    for n, turn in enumerate(game.history, start=1):
        if replay.phase is Phase.ROLL:
            replay = replay.roll(turn.dice.a, turn.dice.b)
        position = replay.position
        play = replay.rules.parse_play(position, turn.dice, turn.play)
        yield n, turn.side, turn.dice, position, play
        replay = replay.play(play)


def review_turns(
    game: Game,
    start: int = 0,
    stop: int | None = None,
    *,
    depth: str = "expert",
    on_progress: Progress | None = None,
) -> tuple[PlayReview, ...]:
    """Reviews of the unforced plays among the record's turns[start:stop] (0-based, like a slice).

    Independent ranges can run in separate processes and be joined (in order) by `summarise`.
    `on_progress(done, total)` is called after each turn of the range."""
    judge = judge_for(game.game, depth)
    stop = len(game.history) if stop is None else min(stop, len(game.history))
    total = max(stop - start, 0)
    reviews: list[PlayReview] = []
    for n, side, dice, position, play in _turns(game):
        if n > stop:
            break
        if n <= start:
            continue
        found = review_play(judge, game.rules, position, dice, play)
        if found is not None:
            best, best_equity, equity = found
            reviews.append(PlayReview(n, side, dice, position, play, best, equity, best_equity))
        if on_progress is not None:
            on_progress(n - start, total)
    return tuple(reviews)


def summarise(game: Game, reviews: Sequence[PlayReview], *, depth: str = "expert") -> Analysis:
    """The Analysis of `game` from the reviews of all its turns (from one or several `review_turns`)."""
    ordered = tuple(sorted(reviews, key=lambda r: r.turn))
    sides = []
    for side in (Side.WHITE, Side.BLACK):
        mine = [r for r in ordered if r.side is side]
        losses = [r.loss for r in mine]
        worst = sorted((r for r in mine if r.loss > 0.0), key=lambda r: (-r.loss, r.turn))[:WORST]
        sides.append(
            SideReview(
                side=side,
                moves=sum(1 for t in game.history if t.side is side),
                decisions=len(mine),
                total_loss=sum(losses),
                doubtful=sum(1 for r in mine if r.mark == "?!"),
                errors=sum(1 for r in mine if r.mark == "?"),
                blunders=sum(1 for r in mine if r.mark == "??"),
                worst=tuple(worst),
            )
        )
    return Analysis(game.game, depth, judge_for(game.game, depth).scale, ordered, sides[0], sides[1])


def analyse(game: Game, *, depth: str = "expert", on_progress: Progress | None = None) -> Analysis:
    """Review every unforced play of `game` (finished or not) and sum up each side."""
    return summarise(game, review_turns(game, depth=depth, on_progress=on_progress), depth=depth)


def hint(game: Game, *, depth: str = "expert") -> Hint:
    """The best plays (best first, at most TOP) for the side on turn of a game in its MOVE phase."""
    if game.phase is not Phase.MOVE or game.dice is None:
        raise WrongPhaseError(f"no hint in phase {game.phase.value}: a hint needs dice to play")
    judge = judge_for(game.game, depth)
    rules, position = game.rules, game.position
    plays = rules.legal_plays(position, game.dice)
    pool, scores = _ranked(judge, rules, position, plays)
    equities = _equities(judge, rules, position, plays, pool, scores)
    best = _best(pool, equities)
    others = sorted((i for i in pool if i != best), key=lambda i: (-equities[i][0], pool.index(i)))
    options = []
    for i in [best, *others][:TOP]:
        equity, value = equities[i]
        won = plays[i].position.x[0] == 15
        chance = 1.0 if won else judge.win_chance(position, plays[i].position, value)
        options.append(PlayOption(plays[i], equity, chance))
    return Hint(game.turn, game.dice, tuple(options))
