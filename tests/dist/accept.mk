# make accept-dist UPSTREAM=<dir> (DISTRIBUTED-SPEC §5): upstream PyPTO's distributed
# examples and manual blocks, run in place from a checkout of hw-native-sys/pypto outside
# this repository.  The one pinned revision; tests/dist/blocks.txt classifies its blocks.
ACCEPT_UPSTREAM_REV := e2d0f78ae6d709c0d6ee345a48db2c3d621a4b09
ACCEPT_ONLY ?=

.PHONY: accept-dist
accept-dist: build
	@test -n "$(UPSTREAM)" || { echo "usage: make accept-dist UPSTREAM=<checkout of hw-native-sys/pypto at $(ACCEPT_UPSTREAM_REV)>"; exit 2; }
	/usr/bin/python3 tests/dist/accept.py --upstream "$(UPSTREAM)" --revision $(ACCEPT_UPSTREAM_REV) $(if $(ACCEPT_ONLY),--only "$(ACCEPT_ONLY)")
