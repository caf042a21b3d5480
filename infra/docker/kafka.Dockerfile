# Kafka for the CI compose stack and the testcontainers harness (infra/local/docker.sh builds it;
# docs/deployment.md): infra/local/kafka.sh's single KRaft node with the very jars it resolved from
# Maven Central (the build context is made by docker.sh: kafka.sh, pom.xml, libs/), so containers
# run what the infra/local broker runs. Production uses apache/kafka (docker-compose.yml).
# Settings from the environment, as kafka.sh reads them: KAFKA_PORT, KAFKA_CONTROLLER_PORT.
ARG BASE_IMAGE=robinson-base:current
FROM ${BASE_IMAGE}
RUN apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless >/dev/null && rm -rf /var/lib/apt/lists/*
COPY infra /opt/robinson/infra
# kafka.sh finds resolved jars by the pom's hash stamp in its cache directory (.resolved).
ENV ROBINSON_CACHE=/opt/robinson-cache KAFKA_STATE_DIR=/var/lib/kafka
COPY libs /opt/robinson-cache/kafka-from-build/libs
RUN version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' /opt/robinson/infra/local/kafka/pom.xml)" && \
    mv /opt/robinson-cache/kafka-from-build "/opt/robinson-cache/kafka-$version"
CMD ["bash", "/opt/robinson/infra/local/kafka.sh", "run"]
