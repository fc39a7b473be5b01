"""The tests: tests/engine the rules, tests/ai the computer, tests/render the pictures, tests/bot the bot
through a real redis-server and the fake Bot API (testkit/fake_telegram); test_architecture.py the shape of
the code."""
