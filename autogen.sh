#!/bin/sh
# Regenerate the build system from a fresh checkout.
set -e
cd "$(dirname "$0")"
autoreconf --install --force
