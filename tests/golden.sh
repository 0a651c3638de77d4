#!/bin/sh
# Golden tests against the reference tool's tables (see golden.py).
exec python3 "$(dirname "$0")/golden.py" "$@"
