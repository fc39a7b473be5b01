# The bot's image. Stage `build` compiles the Russian message catalogue with babel (a build-time tool the
# bot does not import) and builds nardy's wheel. The final image installs the dependencies, pinned by
# constraints.txt, in a layer of their own that is rebuilt only when pyproject.toml or constraints.txt
# change; then the wheel. It runs as an unprivileged user; without REDIS_URL the bot starts the embedded
# redis-server (the `embedded` extra) with its data in /data.

FROM python:3.11-slim AS base
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore


FROM base AS build
WORKDIR /src
COPY constraints.txt ./
RUN pip install -c constraints.txt babel setuptools
COPY pyproject.toml README.md ./
COPY engine ./engine
COPY render ./render
COPY bot ./bot
# .dockerignore leaves the committed nardy.mo out: the catalogue is compiled here, afresh.
RUN python -m bot.i18n \
    && pip wheel --no-deps --no-build-isolation --wheel-dir /wheels .


FROM base AS runtime
# FriBiDi, which Pillow's libraqm loads at run time to lay Persian out right to left on the boards
# (render/text.py shapes_right_to_left; without it Persian boards fall back to English words).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libfribidi0 \
    && rm -rf /var/lib/apt/lists/*
# The user `nardy` (USER names it by number, so that a runtime can tell it is not root).
RUN useradd --create-home --uid 10001 --user-group nardy \
    && mkdir -p /data \
    && chown nardy /data
ENV NARDY_DATA_DIR=/data
WORKDIR /app
# The bot's dependencies and the `embedded` extra's, read from pyproject.toml (nardy itself comes later).
COPY pyproject.toml constraints.txt ./
RUN python -c "import tomllib; project = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
requirements = project['dependencies'] + project['optional-dependencies']['embedded']; \
print(*requirements, sep=chr(10))" >requirements.txt \
    && pip install -c constraints.txt -r requirements.txt
COPY --from=build /wheels /wheels
RUN pip install --no-deps /wheels/*.whl \
    && rm -rf /wheels

USER 10001
VOLUME ["/data"]
# A polling bot serves no port: healthy while its process runs and its Redis (REDIS_URL, else the
# embedded one's socket in /data) answers PING. One line of output says which.
HEALTHCHECK --interval=30s --timeout=10s --start-period=30s --retries=3 \
    CMD ["python", "-m", "bot.health"]
CMD ["nardy-bot"]
