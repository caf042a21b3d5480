#!/usr/bin/env bash
# docker-compose on the CI stack: docker-compose.yml with the docker-compose.ci.yml override, on
# the private engine of infra/local/docker.sh (docs/deployment.md "Production and CI compose").
#
#   bash infra/local/compose-ci.sh up -d --no-build      # any docker-compose command and options
#   bash infra/local/compose-ci.sh run --rm -T admin orgs list
#   bash infra/local/compose-ci.sh down --volumes
#
# The project is COMPOSE_PROJECT_NAME (default robinson-ci); ports and the rest come from the
# CI_* variables of docker-compose.ci.yml. One step compose 1.29 cannot express in an override:
# the production file publishes the API's port, an override can only add ports, and Docker
# refuses published ports on the host network. So the two files are merged (`config`) and the
# `ports` of host-network services dropped (on the host network the port is the host's anyway),
# and compose runs that merged file.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
state="${DOCKER_STATE_DIR:-${ROBINSON_LOCAL:-${TMPDIR:-/tmp}/robinson-local}/docker}"
export DOCKER_HOST="${DOCKER_HOST:-unix://$state/docker.sock}"
export COMPOSE_PROJECT_NAME="${COMPOSE_PROJECT_NAME:-robinson-ci}"
unset COMPOSE_FILE
mkdir -p "$state/compose"
merged="$state/compose/$COMPOSE_PROJECT_NAME.yml"
docker-compose --project-directory "$repo" -f "$repo/docker-compose.yml" -f "$repo/docker-compose.ci.yml" \
  config >"$merged.partial"
python3 - "$merged.partial" >"$merged" <<'PY'
import sys
import yaml  # python3-yaml: a dependency of Debian's docker-compose

doc = yaml.safe_load(open(sys.argv[1]))
for service in doc.get("services", {}).values():
    if service.get("network_mode") == "host":
        service.pop("ports", None)
yaml.safe_dump(doc, sys.stdout, sort_keys=False)
PY
rm -f "$merged.partial"
exec docker-compose --project-directory "$repo" -f "$merged" "$@"
