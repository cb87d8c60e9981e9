# A Dockerfile with mistakes dockerfilelint must report, so that `make lint-docker`
# cannot pass with a linter that checks nothing: an untagged base image, apt-get
# install without -y, and a HEALTHCHECK option without its value.
FROM debian
RUN apt-get update && apt-get install curl
HEALTHCHECK --interval CMD ["curl", "-f", "http://localhost:8080/health"]
