"""Provably fair dice: the derivation (known vectors, rejection of biased bytes, no bias over many rolls),
commitment and reveal, the rolls a game's record shows, and the check of a game's dice."""

from __future__ import annotations

import hashlib
import hmac
import subprocess
import sys
from pathlib import Path

import pytest

from engine import Game, Phase, Side
from engine.fair_dice import (
    ACCEPT_BELOW,
    FairDiceError,
    FairSeeds,
    check_client_seed,
    combine,
    commitment,
    fair_roll,
    recorded_rolls,
    verify,
)

SEED = "00" * 31 + "01"
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "verify_dice.py"


def test_known_vector_of_the_first_rolls_and_the_commitment() -> None:
    assert commitment(SEED) == "ec4916dd28fc4c10d78e287ca5d9cc51ee1ae73cbfde08c6b37324cbfaac8bc5"
    assert commitment(SEED) == hashlib.sha256(bytes.fromhex(SEED)).hexdigest()
    rolls = [fair_roll(SEED, "abc/1", n, ("w", "b")) for n in range(8)]
    assert rolls == [(2, 5), (6, 4), (3, 6), (6, 1), (3, 2), (2, 5), (1, 4), (6, 5)]


def _by_hand(seed: str, game: str, n: int, white: str, black: str) -> tuple[int, int]:
    """The algorithm of docs/fairness.md, written out once more."""
    accepted = [
        b % 6 + 1
        for k in range(4)
        for b in hmac.new(
            bytes.fromhex(seed), f"{game}:{n}:{white}:{black}:{k}".encode(), hashlib.sha256
        ).digest()
        if b < 252
    ]
    return accepted[0], accepted[1]


def test_a_byte_from_252_up_is_skipped_not_folded_into_a_face() -> None:
    skipped = 0
    for n in range(3000):
        first = hmac.new(bytes.fromhex(SEED), f"g/1:{n}:a:b:0".encode(), hashlib.sha256).digest()
        if max(first[:2]) >= ACCEPT_BELOW:
            skipped += 1
        assert fair_roll(SEED, "g/1", n, ("a", "b")) == _by_hand(SEED, "g/1", n, "a", "b")
    assert skipped > 0, "the sample met a biased byte among the first two (probability ~3% a roll)"


def test_every_input_changes_the_rolls() -> None:
    base = [fair_roll(SEED, "g/1", n, ("a", "b")) for n in range(20)]
    assert [fair_roll(SEED, "g/2", n, ("a", "b")) for n in range(20)] != base
    assert [fair_roll(SEED, "g/1", n, ("a", "c")) for n in range(20)] != base
    assert [fair_roll(SEED, "g/1", n, ("b", "a")) for n in range(20)] != base
    assert [fair_roll("00" * 32, "g/1", n, ("a", "b")) for n in range(20)] != base


def test_the_dice_show_no_bias_by_a_chi_squared_test() -> None:
    faces = [0] * 6
    pairs = [0] * 36
    rolls = 36_000
    for n in range(rolls):
        a, b = fair_roll(SEED, "chi/1", n, ("x", "y"))
        faces[a - 1] += 1
        faces[b - 1] += 1
        pairs[(a - 1) * 6 + b - 1] += 1
    chi_faces = sum((f - rolls * 2 / 6) ** 2 / (rolls * 2 / 6) for f in faces)
    chi_pairs = sum((p - rolls / 36) ** 2 / (rolls / 36) for p in pairs)
    assert chi_faces < 20.52, (chi_faces, faces)  # 5 degrees of freedom, p = 0.001
    assert chi_pairs < 66.62, (chi_pairs, pairs)  # 35 degrees of freedom, p = 0.001


def test_malformed_seeds_are_refused_with_the_reason() -> None:
    with pytest.raises(FairDiceError, match="64 lower-case hex"):
        commitment("xyz")
    with pytest.raises(FairDiceError, match="1-32 characters"):
        check_client_seed("with space")
    with pytest.raises(FairDiceError, match="1-32 characters"):
        FairSeeds(SEED, ("ok", "x" * 33), "g/1")
    assert check_client_seed("lucky-7_A") == "lucky-7_A"


def test_a_secret_of_two_parts_is_sha256_of_both_and_a_wrong_pair_is_refused() -> None:
    white, black = "11" * 32, "22" * 32
    seeds = FairSeeds.of_parts((white, black), ("a", "b"), "g/1")
    assert seeds.server_seed == combine((white, black))
    assert seeds.server_seed == hashlib.sha256(bytes.fromhex(white + black)).hexdigest()
    assert combine((black, white)) != seeds.server_seed, "the order counts: white's part first"
    assert FairSeeds.from_json(seeds.to_json()) == seeds
    with pytest.raises(FairDiceError, match="not made of its parts"):
        FairSeeds(SEED, ("a", "b"), "g/1", parts=(white, black))


def test_the_seeds_never_print_their_secret() -> None:
    seeds = FairSeeds(SEED, ("a", "b"), "g/1", rolls=3)
    assert SEED not in repr(seeds) and SEED not in str(seeds)
    assert FairSeeds.from_json(seeds.to_json()) == seeds


def test_recorded_rolls_of_short_nardy_skip_the_opening_dice_played_as_the_first_turn() -> None:
    game = Game.new("short").opening_roll(3, 3).opening_roll(5, 2)  # a tie, then white starts with 5-2
    game = game.play(game.legal_plays()[0]).roll(6, 1)
    assert recorded_rolls(game) == [(3, 3), (5, 2), (6, 1)]


def test_recorded_rolls_of_long_nardy_count_the_first_turn_s_own_roll() -> None:
    game = Game.new("long").opening_roll(1, 4)  # black starts, then rolls
    assert game.phase is Phase.ROLL
    game = game.roll(6, 5)
    game = game.play(game.legal_plays()[0])
    assert recorded_rolls(game) == [(1, 4), (6, 5)]


def _game_from_seeds(seeds: FairSeeds, turns: int, variant: str = "short") -> tuple[Game, int]:
    """A game whose dice are the seeds' rolls, first legal play each turn; and how many rolls it made."""
    game, n = Game.new(variant), 0
    while game.phase is Phase.OPENING:
        game, n = game.opening_roll(*seeds.roll(n)), n + 1
    for _ in range(turns):
        if game.phase is Phase.ROLL:
            game, n = game.roll(*seeds.roll(n)), n + 1
        game = game.play(game.legal_plays()[0])
        if game.phase is Phase.OVER:
            break
    return game, n


@pytest.mark.parametrize("variant", ["short", "long"])
def test_a_game_played_with_its_seeds_checks_out_and_a_changed_roll_does_not(variant: str) -> None:
    seeds = FairSeeds(SEED, ("alice", "bob"), "g7/1")
    game, made = _game_from_seeds(seeds, 30, variant)
    seeds = FairSeeds(SEED, seeds.clients, seeds.game, rolls=made)
    rolls = recorded_rolls(game)
    assert verify(SEED, commitment(SEED), seeds, rolls).ok
    assert not verify(SEED, "0" * 64, seeds, rolls).ok  # not the commitment shown
    a, b = rolls[5]
    forged = rolls[:5] + [(b % 6 + 1, a)] + rolls[6:]
    verdict = verify(SEED, commitment(SEED), seeds, forged)
    assert not verdict.ok and verdict.first_mismatch == 5


def test_a_roll_made_and_not_played_before_a_resignation_still_checks_out() -> None:
    seeds = FairSeeds(SEED, ("alice", "bob"), "g8/1")
    game, made = _game_from_seeds(seeds, 6)
    if game.phase is Phase.ROLL:
        game, made = game.roll(*seeds.roll(made)), made + 1
    game = game.resign(Side.WHITE)  # the dice of the turn in progress are not in the record
    seeds = FairSeeds(SEED, seeds.clients, seeds.game, rolls=made)
    assert len(recorded_rolls(game)) == made - 1
    assert verify(SEED, commitment(SEED), seeds, recorded_rolls(game)).ok


def test_the_standalone_script_recomputes_the_rolls_of_a_game() -> None:
    seeds = FairSeeds(SEED, ("alice", "-bob"), "-x_Yz/2")  # values starting with "-" pass as --name=value
    game, _ = _game_from_seeds(seeds, 20, "long")
    listed = " ".join(f"{a}-{b}" for a, b in recorded_rolls(game))
    args = [
        sys.executable,
        str(SCRIPT),
        f"--seed={SEED}",
        f"--commitment={commitment(SEED)}",
        f"--game={seeds.game}",
        f"--white={seeds.clients[0]}",
        f"--black={seeds.clients[1]}",
    ]
    done = subprocess.run([*args, f"--rolls={listed}"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith("everything checks out")
    forged = listed.replace(listed[:3], "6-6" if listed[:3] != "6-6" else "1-1", 1)
    done = subprocess.run([*args, f"--rolls={forged}"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "MISMATCH" in done.stdout
