# Ticket to Ride Discord bot.
#   docker build -t ttr-bot .
#   docker run -d --name ttr --restart unless-stopped --env-file .env -v ttr-data:/data ttr-bot
# Versions come from constraints.txt (pyproject.toml keeps the ranges).
# buildah/podman: add --format docker (OCI images have no HEALTHCHECK) and --layers.

# 1. The project as a wheel (sources, map data and fonts as package data).
FROM python:3.11-slim AS wheel
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY constraints.txt ./
RUN pip install -c constraints.txt setuptools
COPY pyproject.toml README.md ./
COPY maps ./maps
COPY engine ./engine
COPY bot ./bot
COPY assets ./assets
RUN pip wheel --no-deps --no-build-isolation -w /dist .

# 2. The image: dependencies in their own layer (rebuilt only when pyproject.toml or
#    constraints.txt change), then the wheel.
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TTR_DB_PATH=/data/ttr.sqlite3 \
    TTR_HEALTH_PORT=8080 \
    TTR_HEALTH_HOST=0.0.0.0
COPY pyproject.toml constraints.txt /tmp/deps/
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('/tmp/deps/pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/deps/requirements.txt \
    && pip install -c /tmp/deps/constraints.txt -r /tmp/deps/requirements.txt \
    && rm -rf /tmp/deps
COPY --from=wheel /dist/ /tmp/dist/
RUN pip install --no-deps /tmp/dist/*.whl \
    && rm -rf /tmp/dist \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin ttr \
    && mkdir -p /data \
    && chown ttr:ttr /data

# The SQLite database (and its WAL files) live on this volume: keep it, back it up
# with `docker exec ttr ttr-bot backup /data/backup.sqlite3`.
VOLUME ["/data"]
WORKDIR /data
USER ttr
# /health and /metrics (publish with -p 8080:8080 to scrape from outside).
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 CMD ["ttr-bot", "health"]
# PID 1: SIGTERM (docker stop) shuts the bot down cleanly.
CMD ["ttr-bot"]
