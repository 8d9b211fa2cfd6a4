#!/bin/sh
# One image for every ttr process; the first argument picks which one.
#
#   api | scheduler | executor   run that service (configuration: README.md)
#   migrate                      apply database migrations (same as `ttr migrate`)
#   ttr <args>                   the admin CLI, e.g. `ttr project create --name acme --json`
#   help                         this text
#   anything else                run as given (`node -e …`, `sh`)
#
# `exec` makes node PID 1, so SIGTERM from Kubernetes reaches the service
# itself and its graceful shutdown runs. Nothing here writes to disk: the image
# runs with a read-only root filesystem and a writable /tmp.
set -eu

app_dir=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)

usage() {
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
}

if [ "$#" -eq 0 ]; then
  usage
  exit 2
fi

# Where it runs in production, targets on private networks (the database,
# cloud metadata, internal services) are refused unless the operator says
# otherwise: TTR_BLOCK_PRIVATE_NETWORKS=false, or TTR_ALLOW_NETWORKS.
: "${TTR_BLOCK_PRIVATE_NETWORKS:=true}"
export TTR_BLOCK_PRIVATE_NETWORKS

command=$1
shift
case "$command" in
  # V8 flags as in scripts/node-flags.mjs
  api | executor) exec node --max-semi-space-size=32 "$app_dir/services/$command/dist/main.js" "$@" ;;
  scheduler) exec node "$app_dir/services/scheduler/dist/main.js" "$@" ;;
  migrate) exec node "$app_dir/packages/cli/dist/main.js" migrate "$@" ;;
  ttr) exec node "$app_dir/packages/cli/dist/main.js" "$@" ;;
  help | --help | -h) usage ;;
  *) exec "$command" "$@" ;;
esac
