#!/bin/sh
# Golden tests against rocprof-compute 3.3.0's tables and --list-metrics (see golden.py).
exec python3 "$(dirname "$0")/golden.py" --ref 3.3 "$@"
