"""A computer worker that lies, for the tests of what the bot does with a worker's bad answers: each
request gets the next of a list of garbage answers in turn, and the last one is raised in the worker
(an error answer, not garbage). A test module runs it as its `__main__`:

    if __name__ == "__main__":
        run_worker("nardy-liar", lying(GARBAGE))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence


def lying(garbage: Sequence[bytes]) -> Callable[[bytes], bytes]:
    """A worker handler answering each request with the next of `garbage` (round and round); the last
    entry is raised as a RuntimeError instead of answered."""
    answered = 0

    def lie(request: bytes) -> bytes:
        nonlocal answered
        answer = garbage[answered % len(garbage)]
        answered += 1
        if answer == garbage[-1]:
            raise RuntimeError(answer.decode())
        return answer

    return lie
