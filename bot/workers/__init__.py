"""The worker processes: the computer's decisions (computer), the board pictures (pictures), and the pool
that runs them (worker_pool)."""
