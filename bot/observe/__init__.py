"""What an operator sees of a running worker: its Prometheus metrics (`metrics.py`), the endpoint that serves
them with /healthz and /readyz (`server.py`), the gauges sampled from Redis (`sampler.py`) and the JSON log lines
(`logs.py`)."""
