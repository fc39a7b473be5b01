"""Post-game analysis and hints: how much equity each play gave away against the computer's best play.

The judge is the computer's "expert" level itself (`levels.player_for(game, "expert")`): in every
position the best play is the expert's own decision (`SearchPlayer.decide`), so a hint is always the
play the expert would make and the expert's own games are reviewed without a single loss. The expert
scores every legal play with its screening evaluator and, when it has a deeper one, re-scores its
closest candidates with it; the judge reads those scores as equities. A play is measured at the depth
the best play was: when the expert re-scored candidates, a play outside them is re-scored by the same
deep evaluator too, without the bound on work the expert's lookahead may have (else both are the
screen's; when the bound made the expert keep its first impression, so does the judge). The loss of a play is best − made (≥ 0): a play equal
to the expert's choice, or as good by that measure, loses exactly 0. Forced plays (one distinct outcome,
a pass included) are skipped, as GNU Backgammon does. Depth "quick" is the expert's first impression
(its screen only, no deep pass).

The unit is equity: expected points per game for the side that has just played, cubeless, before the
opponent's roll; a finished game counts its points exactly (1, 2 or 3).
- Short nardy: bgsage's network (the raw net to screen, its 2-ply search for the expert's candidates);
  its equity is gnubg's cubeless money equity  P(win) − P(lose) + P(gammon won) − P(gammon lost)
  + P(backgammon won) − P(backgammon lost), in −3..3. The win chance is the raw net's P(win).
- Long nardy: the project's self-play network (long_net.py), the very net the expert plays; its score of
  a position after a play is already the mover's expected points (minus the equity of the opponent, who
  is to move there: P(win)·1 + P(win a mars)·1 − P(lose)·1 − P(lose a mars)·1, in −2..2; koks, an
  option, not counted). The win chance is 1 − the net's P(win) for the opponent.

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

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cache

from engine.ai.levels import player_for
from engine.ai.long_net import LongNetEvaluator
from engine.ai.player import WIN_VALUE, Decision, LookaheadEvaluator, SearchPlayer, score_plays
from engine.ai.short_net import net_probabilities
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

DEPTHS: tuple[str, ...] = ("expert", "quick")

Progress = Callable[[int, int], None]
# The mover's chance to win after a play: (position before, position after) -> P(win).
WinChance = Callable[[Position, Position], float]


def _short_win_chance(player: SearchPlayer) -> WinChance:
    return lambda before, after: net_probabilities(before, after)[0]


def _long_win_chance(player: SearchPlayer) -> WinChance:
    evaluator = player.evaluator
    if not isinstance(evaluator, LongNetEvaluator):
        raise ValueError(f"the long nardy expert screens with {evaluator!r}, not a network: no win chance")
    return lambda before, after: evaluator.win_chances([after])[0]


@dataclass(frozen=True)
class Judge:
    """How one game's plays are judged: by the expert `player`'s own decisions, its scores (for the side
    that just moved) read as equities, and `win_chance(before, after)`, the mover's chance to win after a
    play. `scale` names the unit for a reader."""

    player: SearchPlayer
    win_chance: WinChance
    scale: str


_GAMES: dict[str, tuple[Callable[[SearchPlayer], WinChance], str]] = {
    "short": (_short_win_chance, "cubeless money equity from bgsage's net (−3..3)"),
    "long": (_long_win_chance, "expected points from the long nardy network (−2..2)"),
}


@cache
def judge_for(game: str, depth: str = "expert") -> Judge:
    """The judge of `game` at `depth`: "expert" (the expert level's decisions) or "quick" (the expert's
    screen only)."""
    if game not in _GAMES:
        raise ValueError(f"no analysis for game {game!r}; games: {', '.join(_GAMES)}")
    if depth not in DEPTHS:
        raise ValueError(f"unknown analysis depth {depth!r}; depths: {', '.join(DEPTHS)}")
    expert = player_for(game, "expert")
    if not isinstance(expert, SearchPlayer) or expert.noise != 0.0:
        raise ValueError(f"the {game} expert {expert!r} is not a noiseless SearchPlayer: no judge follows it")
    player = expert if depth == "expert" else replace(expert, deep=None)
    win_chance, scale = _GAMES[game]
    return Judge(player, win_chance(player), scale)


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
    """The best plays for the side on turn (the expert's choice first, at most TOP) and its chance to win
    after the best one (short: bgsage's raw net; long: the long nardy network)."""

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


def _decide(judge: Judge, rules: Rules, position: Position, plays: Sequence[Play]) -> Decision:
    """The expert's decision among `plays` (noiseless: the random source is never drawn from)."""
    return judge.player.decide(rules, position, plays, random.Random(0))


def _equities(
    judge: Judge,
    rules: Rules,
    position: Position,
    plays: Sequence[Play],
    decision: Decision,
    wanted: Iterable[int],
) -> dict[int, float]:
    """The equity of each play in `wanted` at the depth of the decision's best play: when the expert
    re-scored candidates, their deep scores and the deep evaluator's for the others; else the screen's."""
    wanted = list(dict.fromkeys(wanted))
    deep = judge.player.deep
    if isinstance(deep, LookaheadEvaluator):
        deep = deep.unbounded()  # a play the expert did not look at is judged at its depth, whatever it costs
    if decision.deep and deep is not None:
        values = {i: decision.deep[i] for i in wanted if i in decision.deep}
        rest = [i for i in wanted if i not in values]
        values.update(zip(rest, score_plays(rules, deep, position, [plays[i] for i in rest])))
    else:
        values = {i: decision.screen[i] for i in wanted}
    return {i: (v - WIN_VALUE) if v >= WIN_VALUE else v for i, v in values.items()}


def review_play(
    judge: Judge, rules: Rules, position: Position, dice: Dice, play: Play
) -> tuple[Play, float, float] | None:
    """(best play, its equity, the made play's equity) for `play` with `dice` in `position`; None when
    the play was forced (one distinct legal outcome, a pass included). The best play is the expert's
    choice, unless the play made is worth as much (then it is the best itself: no loss)."""
    plays = rules.legal_plays(position, dice)
    if len(plays) == 1:
        return None
    made = plays.index(play)  # Play equality is by the resulting position
    decision = _decide(judge, rules, position, plays)
    best = decision.chosen
    equities = _equities(judge, rules, position, plays, decision, (best, made))
    if equities[made] >= equities[best]:
        best = made  # the expert's choice, or a play as good: no loss
    return plays[best], equities[best], equities[made]


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
    """The best plays for the side on turn of a game in its MOVE phase: the expert's choice first, then
    at most TOP − 1 others, better first.

    The others are the expert's other candidates (those it re-scored), filled up from its screen order
    when it had fewer than TOP; every option's equity is measured at the depth of the expert's choice,
    as a review would measure the play (so a filler is re-scored by the deep evaluator when the expert
    ran one). An option worth more than the expert's choice by that measure is left out. Only a filler
    can be (the choice is the best of the candidates, and without a deep pass the best on the screen): a
    play the expert screened out, beyond its margin, that the deeper look happens to rate higher. Listed
    below the best play it would contradict the hint's first line, and put first it would no longer be
    the expert's play; so the hint may list fewer than TOP. Equal equities keep the screen's order."""
    if game.phase is not Phase.MOVE or game.dice is None:
        raise WrongPhaseError(f"no hint in phase {game.phase.value}: a hint needs dice to play")
    judge = judge_for(game.game, depth)
    rules, position = game.rules, game.position
    plays = rules.legal_plays(position, game.dice)
    decision = _decide(judge, rules, position, plays)
    best = decision.chosen
    screened = sorted(range(len(plays)), key=lambda i: (-decision.screen[i], i))
    rank = {i: n for n, i in enumerate(screened)}
    others = sorted((i for i in decision.deep if i != best), key=rank.__getitem__)
    others += [i for i in screened if i != best and i not in decision.deep][: max(TOP - 1 - len(others), 0)]
    equities = _equities(judge, rules, position, plays, decision, (best, *others))
    kept = sorted((i for i in others if equities[i] <= equities[best]), key=lambda i: (-equities[i], rank[i]))
    options = []
    for i in [best, *kept][:TOP]:
        won = plays[i].position.x[0] == 15
        chance = 1.0 if won else judge.win_chance(position, plays[i].position)
        options.append(PlayOption(plays[i], equities[i], chance))
    return Hint(game.turn, game.dice, tuple(options))


# ----- a review's figures beside the plays ----------------------------------------------------------


def forced_turns(game: Game) -> tuple[bool, ...]:
    """For each turn of the record, whether it was forced (one distinct legal outcome, a pass included):
    the plays a review never judges."""
    return tuple(len(game.rules.legal_plays(position, dice)) == 1 for _, _, dice, position, _ in _turns(game))


def win_chances(game: Game) -> tuple[float, ...]:
    """White's chance to win at each frame of the game's replay (render/replay.py replay_views): the start
    (0.5), after each turn of the record (the mover's chance after its play by the "quick" judge's
    `win_chance`, read from white's side), and for a finished game its result (1.0 or 0.0). A play that
    bears off the last checker wins: 1.0 for its mover."""
    judge = judge_for(game.game, "quick")
    chances = [0.5]
    for _, side, _, position, play in _turns(game):
        mover = 1.0 if play.position.x[0] == 15 else judge.win_chance(position, play.position)
        chances.append(mover if side is Side.WHITE else 1.0 - mover)
    if game.phase is Phase.OVER and game.result is not None:
        chances.append(1.0 if game.result.winner is Side.WHITE else 0.0)
    return tuple(chances)
