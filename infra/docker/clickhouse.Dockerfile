# ClickHouse 25.8 for the CI compose stack and the testcontainers harness (infra/local/docker.sh
# builds it; docs/deployment.md): the engine front of infra/local/chdb.sh (chdb from PyPI behind
# infra/local/chdb/front.py), as the tests run it. Production uses clickhouse/clickhouse-server:25.8.
# Settings from the environment: CHDB_HTTP_PORT (18124), CHDB_HOST (127.0.0.1), CHDB_STATE_DIR (data).
ARG BASE_IMAGE=robinson-base:current
FROM ${BASE_IMAGE}
ENV ROBINSON_LOCAL=/opt/robinson-local CHDB_STATE_DIR=/var/lib/chdb
COPY infra/local/chdb.sh /opt/robinson/infra/local/chdb.sh
# The venv first (the slow layer: apt and ~150 MB from PyPI), the front after: editing front.py
# does not reinstall the engine.
RUN bash /opt/robinson/infra/local/chdb.sh install && rm -rf /var/lib/apt/lists/* /root/.cache/pip
COPY infra/local/chdb /opt/robinson/infra/local/chdb
CMD ["bash", "/opt/robinson/infra/local/chdb.sh", "run"]
