#!/usr/bin/env python3
"""Recompute the dice of a nardy bot game from its revealed seeds, with nothing but Python 3.

    python3 verify_dice.py --seed=SECRET --commitment=HASH --game=ID/N --white=SEED --black=SEED \\
        [--white-part=PART --black-part=PART] [--rolls="5-3 6-1 ..."]

The values are those /verify shows once the game is over. The script checks that SHA-256 of the secret
seed is the commitment the bot showed when the game started, prints each roll the seeds give, and, given
the rolls of the game (--rolls), says whether they all follow. Exit status 0 if everything checks out.

The secret is SHA-256 of two parts, white's 32 bytes then black's (--white-part, --black-part: each
player's /seed showed its part's SHA-256 before the game). The algorithm (the bot's engine/fair_dice.py
does the same): roll n (0, 1, 2, ...: the opening roll and each re-roll of a tie count, their first die
being white's) reads the bytes of
HMAC-SHA256(key = the secret seed's 32 bytes, message = "GAME:n:WHITE:BLACK:k") for k = 0, 1, ... in
order; a byte b below 252 is a die, b % 6 + 1, and a byte from 252 up is skipped (so each face has
exactly 42 of the 252 byte values that count); the first two dice are the roll.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import sys


def roll(seed: bytes, game: str, n: int, white: str, black: str) -> tuple[int, int]:
    dice: list[int] = []
    k = 0
    while len(dice) < 2:
        message = f"{game}:{n}:{white}:{black}:{k}".encode("ascii")
        for byte in hmac.new(seed, message, hashlib.sha256).digest():
            if byte < 252 and len(dice) < 2:
                dice.append(byte % 6 + 1)
        k += 1
    return dice[0], dice[1]


def sha(hex_text: str) -> str:
    return hashlib.sha256(bytes.fromhex(hex_text)).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", required=True, help="the secret seed revealed at the end (64 hex digits)")
    parser.add_argument("--commitment", required=True, help="the SHA-256 shown when the game started")
    parser.add_argument("--game", required=True, help="the game, as the bot names it: ID/N")
    parser.add_argument("--white", required=True, help="white's seed")
    parser.add_argument("--black", required=True, help="black's seed")
    parser.add_argument("--white-part", default="", help="white's part of the secret (64 hex digits)")
    parser.add_argument("--black-part", default="", help="black's part of the secret (64 hex digits)")
    parser.add_argument("--rolls", default="", help='the rolls of the game, "5-3 6-1 ..." (optional)')
    parser.add_argument("--count", type=int, default=0, help="rolls to print when --rolls is not given")
    args = parser.parse_args(argv)

    seed = bytes.fromhex(args.seed)
    ok = True
    if hashlib.sha256(seed).hexdigest() != args.commitment.lower():
        print("commitment: MISMATCH: SHA-256 of the seed is", hashlib.sha256(seed).hexdigest())
        ok = False
    else:
        print("commitment: ok")
    if args.white_part or args.black_part:
        parts = bytes.fromhex(args.white_part) + bytes.fromhex(args.black_part)
        if hashlib.sha256(parts).hexdigest() != args.seed.lower():
            print("parts: MISMATCH: the secret is not SHA-256 of white's part then black's")
            ok = False
        else:
            print("parts: ok (the secret is SHA-256 of white's part then black's)")
        for side, part in (("white", args.white_part), ("black", args.black_part)):
            print(f"{side}'s part's SHA-256 (what /seed showed before the game):", sha(part))
    claimed = [tuple(int(d) for d in r.split("-")) for r in args.rolls.split()]
    for n in range(max(len(claimed), args.count)):
        derived = roll(seed, args.game, n, args.white, args.black)
        line = f"roll {n}: {derived[0]}-{derived[1]}"
        if n < len(claimed):
            same = claimed[n] == derived
            ok = ok and same
            line += "  ok" if same else f"  MISMATCH: the game had {claimed[n][0]}-{claimed[n][1]}"
        print(line)
    print("everything checks out" if ok else "the dice do NOT follow from these seeds")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
