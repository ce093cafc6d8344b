# Folio — `make run` opens the bundled library (a headless capture without a display),
# `make test` runs every test. Both install the Debian packages they need first.
# `make install [PREFIX=/usr/local] [DESTDIR=]`, `make uninstall`, `make deb`: docs/install.md.

# What building needs (`make build|release|install|deb|run`): the libraries' headers, the Mesa
# drivers a headless capture runs on, dpkg-shlibdeps for the package. The tests need more: an X
# server and input for the window tests, Python to write test documents, ffmpeg for the video
# tests, the desktop-entry validator and man for the install tests. `.ci/run` names both lists.
BUILD_PACKAGES := libglfw3-dev libgl-dev libegl-dev libopengl-dev libpng-dev \
                  libpoppler-glib-dev zlib1g-dev libjpeg62-turbo-dev libwebp-dev libarchive-dev \
                  libmupdf-dev libmujs-dev libgumbo-dev libopenjp2-7-dev libjbig2dec0-dev \
                  libharfbuzz-dev libfreetype-dev libdjvulibre-dev libpango1.0-dev libcairo2-dev libglib2.0-dev \
                  libhyphen-dev libfontconfig-dev hyphen-en-us hyphen-en-gb hyphen-fr hyphen-de hyphen-es hyphen-it hyphen-pt-pt hyphen-ru \
                  hyphen-pl hyphen-nl hyphen-sv hyphen-da hyphen-no hyphen-cs hyphen-hu hyphen-uk hyphen-el hyphen-ca hyphen-pt-br hyphen-ro \
                  libsqlite3-dev libspeechd-dev libgl1-mesa-dri libegl-mesa0 dpkg-dev
TEST_PACKAGES := xvfb xauth xdotool xclip python3-cairo python3-pil ffmpeg desktop-file-utils man-db fonts-dejavu-core \
                 djvulibre-bin parallel zip strace espeak-ng
SWIFT ?= swift
OUT ?= out
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test fuzz bench deps test-deps build release clean install uninstall deb man icon

# The version, kept in one place: Sources/folio/Version.swift.
VERSION := $(shell sed -n 's/^let folioVersion = "\(.*\)"$$/\1/p' Sources/folio/Version.swift)
# Release builds link the Swift runtime in, so an installed binary needs no toolchain.
RELEASE_FLAGS := -c release -Xswiftc -static-stdlib

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
DATADIR = $(PREFIX)/share
MANDIR = $(DATADIR)/man
# zsh's own folder for a prefix; Debian's zsh reads /usr/share/zsh/vendor-completions instead.
ZSHCOMPDIR = $(DATADIR)/zsh/site-functions
# Every file `make install` writes, for `make uninstall`; share/folio is wholly Folio's.
INSTALLED = $(BINDIR)/folio $(MANDIR)/man1/folio.1 \
            $(DATADIR)/bash-completion/completions/folio \
            $(ZSHCOMPDIR)/_folio \
            $(DATADIR)/fish/vendor_completions.d/folio.fish \
            $(DATADIR)/applications/folio.desktop \
            $(DATADIR)/icons/hicolor/scalable/apps/folio.svg
# The folders those files go in. Those that `make install` had to create are listed in
# share/folio/installed-folders, for `make uninstall` to remove when empty.
INSTALL_DIRS = $(BINDIR) $(DATADIR)/folio $(MANDIR)/man1 $(DATADIR)/bash-completion/completions \
               $(ZSHCOMPDIR) $(DATADIR)/fish/vendor_completions.d $(DATADIR)/applications \
               $(DATADIR)/icons/hicolor/scalable/apps
FOLDER_LIST = $(DATADIR)/folio/installed-folders

# Installs those of the packages named that are missing (apt is not run when none is).
define apt-install
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "Installing: $$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "Swift 6 is needed: https://www.swift.org/install/linux/" >&2; exit 1; }
endef

deps:
	$(call apt-install,$(BUILD_PACKAGES))

test-deps:
	$(call apt-install,$(BUILD_PACKAGES) $(TEST_PACKAGES))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product folio

run: release
	@bin=$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/folio; \
	if [ -n "$$DISPLAY$$WAYLAND_DISPLAY" ] && $$bin view --check-display 2>/dev/null; then \
		exec $$bin view; \
	else \
		mkdir -p $(OUT); \
		echo "No display: writing a headless capture instead."; \
		$$bin capture --page 6 -o $(OUT)/folio-capture.png; \
	fi

test: test-deps
	$(SWIFT) build --build-tests
	# Layouts kept between runs (LayoutCache) start empty: each run lays its books out itself.
	# The documents the tests write once per process (and never remove: nothing runs after the
	# last test) go into a scratch folder of the run's own, removed when it ends: outside the
	# tree, where the install tests' prefix must be, and open to all as /tmp is (a test runs
	# folio as another user).
	rm -rf .build/test-cache
	scratch=$$(mktemp -d) && trap 'rm -rf "$$scratch"' EXIT && chmod 1777 "$$scratch" && \
	  TMPDIR=$$scratch XDG_CACHE_HOME=$(CURDIR)/.build/test-cache $(SWIFT) test --skip-build
	scripts/test-outside-package

# The fuzzers of FolioFuzzTests for FUZZ_SECONDS each (make test runs a few seconds of them).
FUZZ_SECONDS ?= 300
fuzz: deps
	$(SWIFT) build --build-tests
	FOLIO_FUZZ_SECONDS=$(FUZZ_SECONDS) $(SWIFT) test --skip-build --filter FolioFuzzTests

bench: release
	$(call apt-install,mupdf-tools djvulibre-bin)
	$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/folio bench

# The binary, the shaders and the sample library under share/folio, the manual page, shell
# completions, the desktop entry and the icon. The binary finds share/folio from its own place.
# bash sources its completions: the generated script's #! line is dropped.
install: release
	@bin=$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/folio; set -e; \
	d="$(DESTDIR)"; prefix="$(patsubst %/,%,$(PREFIX))"; new=; \
	for dir in $(INSTALL_DIRS); do \
		while [ "$$dir" != "$$prefix" ] && [ "$$dir" != / ] && [ ! -d "$$d$$dir" ]; do \
			new="$$new $$dir"; dir=$$(dirname "$$dir"); \
		done; \
	done; \
	for dir in $(INSTALL_DIRS); do install -d "$$d$$dir"; done; \
	if [ -z "$$d" ]; then \
		{ cat "$(FOLDER_LIST)" 2>/dev/null || true; for dir in $$new; do echo "$$dir"; done; } | sort -u > "$(FOLDER_LIST).new"; \
		mv "$(FOLDER_LIST).new" "$(FOLDER_LIST)"; \
	fi; \
	install -m 0755 -s "$$bin" "$$d$(BINDIR)/folio"; \
	rm -rf "$$d$(DATADIR)/folio/Shaders" "$$d$(DATADIR)/folio/Textures"; \
	cp -R Shaders Textures "$$d$(DATADIR)/folio/"; \
	chmod -R u=rwX,go=rX "$$d$(DATADIR)/folio"; \
	install -m 0644 docs/folio.1 "$$d$(MANDIR)/man1/folio.1"; \
	"$$bin" --generate-completion-script bash | sed '1{/^#!/d}' > "$$d$(DATADIR)/bash-completion/completions/folio"; \
	"$$bin" --generate-completion-script zsh > "$$d$(ZSHCOMPDIR)/_folio"; \
	"$$bin" --generate-completion-script fish > "$$d$(DATADIR)/fish/vendor_completions.d/folio.fish"; \
	chmod 0644 "$$d$(DATADIR)/bash-completion/completions/folio" "$$d$(ZSHCOMPDIR)/_folio" \
		"$$d$(DATADIR)/fish/vendor_completions.d/folio.fish"; \
	install -m 0644 data/folio.desktop "$$d$(DATADIR)/applications/folio.desktop"; \
	install -m 0644 data/folio.svg "$$d$(DATADIR)/icons/hicolor/scalable/apps/folio.svg"; \
	echo "Installed folio $(VERSION) in $$d$(PREFIX)"

# Then the folders install created, deepest first, each only when empty (rmdir removes nothing
# else); PREFIX is never in the list.
uninstall:
	for f in $(INSTALLED); do rm -f "$(DESTDIR)$$f"; done
	@folders=$$(sort -r "$(DESTDIR)$(FOLDER_LIST)" 2>/dev/null); \
	rm -rf "$(DESTDIR)$(DATADIR)/folio"; \
	for dir in $$folders; do rmdir "$(DESTDIR)$$dir" 2>/dev/null || true; done

# A Debian package of the same install step (PREFIX=/usr), its library dependencies found by
# dpkg-shlibdeps: out/folio_VERSION_ARCH.deb.
deb:
	rm -rf $(OUT)/deb
	$(MAKE) install PREFIX=/usr ZSHCOMPDIR=/usr/share/zsh/vendor-completions DESTDIR=$(abspath $(OUT)/deb/debian/folio)
	scripts/make-deb $(OUT)/deb $(VERSION) $(OUT)

# docs/folio.1 from the commands' own help by swift-argument-parser's manual generator, run on
# the help as scripts/ascii-help writes it (the generator drops non-ASCII characters); a blank
# line is not mdoc, so each becomes a paragraph break (man -l would warn).
man: build
	$(SWIFT) build --product generate-manual
	@bin=$$($(SWIFT) build --show-bin-path); out=$$(mktemp -d); \
	FOLIO=$$bin/folio $$bin/generate-manual $(CURDIR)/scripts/ascii-help --section 1 \
		--authors "The Folio project" -o $$out && \
	sed -e 's/^$$/.Pp/' $$out/folio.1 > docs/folio.1; status=$$?; rm -rf $$out; exit $$status

icon:
	scripts/make-icon

clean:
	rm -rf .build $(OUT)
