# The service's own SFTP server (docs/decisions.md §15): OpenSSH's sshd from Debian with internal-sftp,
# one chrooted, key-only account per organisation. Same script and config as the tests use
# (infra/local/sshd.sh), run in the foreground. Host key and accounts persist in volumes.
#   docker compose exec sftp-server bash /opt/robinson/sshd.sh add-account acme /keys/acme.pub
FROM debian:bookworm-slim
RUN apt-get update -qq \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server openssh-client passwd \
  && rm -rf /var/lib/apt/lists/*
COPY infra/local/sshd.sh /opt/robinson/sshd.sh
ENV ROBINSON_LOCAL=/var/lib/robinson-sftp SFTP_PORT=22 SFTP_LISTEN=0.0.0.0 SFTP_ROOT=/srv/robinson-sftp
EXPOSE 22
CMD ["bash", "/opt/robinson/sshd.sh", "run"]
