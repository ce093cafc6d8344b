# Folio — `make run` opens the bundled library (a headless capture without a display),
# `make test` runs every test. Both install the Debian packages they need first.

APT_PACKAGES := libglfw3-dev libgl-dev libegl-dev libopengl-dev libpng-dev \
                libpoppler-glib-dev libjpeg62-turbo-dev libarchive-dev python3-cairo python3-pil \
                libgl1-mesa-dri libegl-mesa0 xvfb xauth xdotool
SWIFT ?= swift
OUT ?= out
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test bench deps build release samples clean

deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing: $$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "Swift 6 is needed: https://www.swift.org/install/linux/" >&2; exit 1; }

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

run: release
	@bin=$$($(SWIFT) build -c release --show-bin-path)/folio; \
	if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] && $$bin view --check-display 2>/dev/null; then \
		exec $$bin view; \
	else \
		mkdir -p $(OUT); \
		echo "No display: writing a headless capture instead."; \
		$$bin capture --page 6 -o $(OUT)/folio-capture.png; \
	fi

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: release
	$$($(SWIFT) build -c release --show-bin-path)/folio bench

samples:
	/usr/bin/python3 scripts/make-sample-library

clean:
	rm -rf .build $(OUT)
