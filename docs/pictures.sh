#!/usr/bin/env bash
# The pictures of the README and the guide, drawn by `throng run`: the city profile's trails
# (docs/city.png, --png), a short animation of it (docs/city.gif, --animate), and
# the maze's crowd on its goal field (docs/maze-field.png, --field), and the
# pedestrian charts of docs/pedestrians.md (docs/door-flow.svg, docs/speed-density.svg).
# The runs are deterministic, so CI draws them again and fails when a committed
# picture differs: after a change that moves the crowd, run this script.
#
#   docs/pictures.sh              # rewrite them all in docs/
#   docs/pictures.sh DIR          # draw them into DIR instead (CI compares)
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-docs}"
mkdir -p "$dir"
cargo run --release --quiet -- run city --png "$dir/city.png" --size 800x800 --quiet
cargo run --release --quiet -- run city --ticks 450 --animate "$dir/city.gif" --size 480x480 \
    --every 10 --quiet
cargo run --release --quiet -- run maze --ticks 300 --png "$dir/maze-field.png" --field exit \
    --size 640x640 --quiet
cargo run --release --quiet --example door_widths -- experiment --plot "$dir/door-flow.svg" >/dev/null
cargo run --release --quiet --example fundamental_diagram -- --plot "$dir/speed-density.svg" \
    >/dev/null
