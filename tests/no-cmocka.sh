#!/bin/sh
# Run by `make check` when configure did not find cmocka: the unit tests
# cannot be built, which is an error, not a skip.
echo "cmocka not found at configure time: apt-get install libcmocka-dev, then re-run configure" >&2
exit 99
