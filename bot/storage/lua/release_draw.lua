-- Let go of a drawing lease: a worker that stops, or gives up for now (bot/storage/games.py).
--
-- KEYS: [1] the lease (nardy:drawing:<id>).
-- ARGV: [1] the worker's token: the lease is deleted only if that worker holds it.
-- Returns 1.

if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
