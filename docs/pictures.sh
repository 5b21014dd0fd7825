#!/usr/bin/env bash
# The README's picture: the city profile's trails, drawn by `throng run --png`.
# The run is deterministic, so CI draws it again and fails when the committed
# docs/city.png differs: after a change that moves the crowd, run this script.
#
#   docs/pictures.sh              # rewrite docs/city.png
#   docs/pictures.sh FILE.png     # draw it elsewhere (CI compares the two)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/city.png}"
cargo run --release --quiet -- run city --png "$out" --size 800x800 --quiet
