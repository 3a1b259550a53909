# SPDX-License-Identifier: Apache-2.0
# Coffer: set up, build, run, test and install.
#
#   make run       install system packages, build, and run cofferd on the session bus (a private bus if none)
#   make test      install system packages (test clients included) and run the whole test suite
#   make install   install cofferd and coffer (linked statically against the Swift runtime), their man pages,
#                  bash/zsh/fish completions, the D-Bus activation file, the systemd user unit and the docs under
#                  PREFIX (DESTDIR for staging), and pam_coffer.so into the system's PAM module directory
#                  (docs/PAM.md); docs/INSTALL.md says what goes where
#   make deb       the same files under /usr as a Debian package, coffer_<version>_<arch>.deb
#   make test-package   builds the package and checks it (static linking, contents, apt install, binaries run)
#   make fuzz / test-asan / test-tsan / reliability   hostile input and sanitizers (docs/RELIABILITY.md)
#   make bench     the side-by-side benchmark (docs/PERFORMANCE.md)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
# systemd --user reads units from /usr/lib/systemd/user and /usr/local/lib/systemd/user, and from
# $XDG_DATA_HOME/systemd/user (~/.local/share/systemd/user) for a user's own installs; never from ~/.local/lib.
SYSTEMD_USER_DIR ?= $(if $(filter /usr /usr/local,$(PREFIX)),$(PREFIX)/lib/systemd/user,$(DATADIR)/systemd/user)
# The session bus reads activation files from $XDG_DATA_HOME/dbus-1/services and each $XDG_DATA_DIRS/dbus-1/services.
DBUS_SERVICES_DIR ?= $(DATADIR)/dbus-1/services
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/coffer
DESTDIR ?=
CONFIGURATION ?= release

# Installed binaries carry the Swift runtime inside them (ldd shows no libswift*), so they run without the toolchain.
# They are built in their own scratch directory: switching --static-swift-stdlib in .build would rebuild everything.
# -s: no symbol tables, a large part of the size; Swift's runtime metadata lives in sections that stay.
# STATIC_LAYOUT is about resident memory: a page fault maps a page's neighbours too, so a daemon whose code is spread
# over the binary ends up with most of it resident. Each function gets its own section, lld puts the functions of
# Sources/cofferd/cofferd.order (what cofferd runs from launch to its first answers; `make symbol-order`) first, and
# packs relative relocations (RELR) instead of a megabyte of RELA entries that the loader reads at every start.
# --no-export-dynamic: the Swift runtime's link options export every symbol of our own modules, which only a
# program that loads plug-ins needs; the loader would read that table at start-up too.
# The C++ runtime is linked in as well: the Swift runtime calls a few of its functions, but loading libstdc++.so
# means the loader resolves and dirties its relocations, tables and data at every start. The toolchain's link
# options (static-stdlib-args.lnk) name -lstdc++ before any option a build can add, so -Bstatic cannot reach it;
# instead STATIC_CXX_DIR, which holds only the archive, is searched before the compiler's own directory with the
# shared library. Any -lstdc++ then takes the archive, and only the members the runtime uses are linked.
STATIC_CXX_DIR = $(CURDIR)/.build-static/static-c++
STATIC_LAYOUT = -Xswiftc -use-ld=lld -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
  -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic \
  -Xlinker --symbol-ordering-file=$(CURDIR)/Sources/cofferd/cofferd.order -Xlinker --no-warn-symbol-ordering \
  -Xswiftc -L$(STATIC_CXX_DIR)
STATIC_BUILD = swift build -c $(CONFIGURATION) --static-swift-stdlib $(STATIC_LAYOUT) -Xlinker -s --scratch-path .build-static

# Build and runtime needs, then the real clients the integration tests drive.
# libstdc++-12-dev holds the C++ runtime's archive that the static builds link (STATIC_CXX_DIR).
BUILD_PACKAGES = pkg-config libdbus-1-dev libgcrypt20-dev dbus-daemon dbus-bin pinentry-curses libstdc++-12-dev \
  $(PAM_BUILD_PACKAGES)
# bubblewrap runs cofferd under the systemd unit's file-system restrictions and sandboxes the Secret portal tests'
# applications, which reach cofferd through xdg-desktop-portal (their client uses python3-gi); mandoc lints the man pages.
TEST_PACKAGES = libsecret-tools gnome-keyring python3 python3-cryptography python3-secretstorage python3-keyring python3-dbus libglib2.0-bin systemd libcap2-bin util-linux pamtester bubblewrap mandoc xdg-desktop-portal python3-gi syncthing strace

# The fault tests: mount namespaces and mounts (util-linux, mount), capabilities (libcap2-bin), prlimit.
FAULT_TEST_PACKAGES = util-linux mount libcap2-bin

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup setup-test build run test install deb test-package verify-unit clean reliability-faults

# Installs only what is missing, so repeated runs cost nothing.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

setup:
	$(call apt_install,$(BUILD_PACKAGES))

# The directory the static builds find libstdc++'s archive in (see STATIC_LAYOUT); the compiler says where it is.
$(STATIC_CXX_DIR)/libstdc++.a: | setup
	@archive="$$($(CC) -print-file-name=libstdc++.a)"; \
	if [ ! -f "$$archive" ]; then echo "libstdc++.a not found (is libstdc++-12-dev installed?)" >&2; exit 1; fi; \
	mkdir -p "$(@D)" && ln -sf "$$archive" "$@"

setup-test: setup
	$(call apt_install,$(TEST_PACKAGES) $(FAULT_TEST_PACKAGES))

build: setup
	swift build -c $(CONFIGURATION) --product cofferd

# Runs cofferd on the session bus, or on a private one it starts (and stops afterwards) when there is none; when
# another provider already serves the session bus it says so and how to switch (scripts/run-cofferd).
run: build
	@scripts/run-cofferd "$$(swift build -c $(CONFIGURATION) --show-bin-path)/cofferd" --foreground --unlock

# Every cofferd/coffer log of the test run is kept here, then scanned for the secrets, passwords, labels and
# attribute values the tests used (the "Secrets hygiene" suite); a value found fails `make test`.
TEST_LOG_ARCHIVE ?= $(CURDIR)/.build/test-logs

test: setup-test pam-module
	swift build --product cofferd
	swift build --product coffer
	swift build --product coffer-manual
	rm -rf "$(TEST_LOG_ARCHIVE)"
	COFFER_TEST_LOG_ARCHIVE="$(TEST_LOG_ARCHIVE)" .ci/failures swift test
	COFFER_TEST_LOG_ARCHIVE="$(TEST_LOG_ARCHIVE)" COFFER_HYGIENE_SCAN=1 \
	  swift test --skip-build --filter 'SecretsHygieneTests/wholeRunLeaksNothing'

# The fault-injection and secrets figures of docs/RELIABILITY.md. COFFER_KILL_POINTS=10000 (and
# COFFER_KILL_SEED=<seed> to replay a run) gives the longer mode.
reliability-faults: setup-test
	swift build --build-tests
	"$$(swift build --show-bin-path)/CofferPackageTests.xctest" --testing-library swift-testing \
	  --filter 'KillPointTests|DiskFaultTests|SecureMemoryTests' | grep '^reliability:'

# The man pages are made by coffer-manual from each command's own description (--experimental-dump-help), and the
# completions by `coffer --generate-completion-script`, so both always match the parsers.
# The docs the installed help and man pages point at (docs/CONFIGURATION.md, ARCHIVE.md, ...) go to DOCDIR.
INSTALLED_DOCS = README.md docs/*.md Sources/KeyringFiles/ARCHIVE.md

install: setup $(STATIC_CXX_DIR)/libstdc++.a
	$(STATIC_BUILD) --product cofferd
	$(STATIC_BUILD) --product coffer
	$(STATIC_BUILD) --product coffer-manual
	bin="$$($(STATIC_BUILD) --show-bin-path)"; \
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(DBUS_SERVICES_DIR)" "$(DESTDIR)$(SYSTEMD_USER_DIR)" \
	  "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(DATADIR)/bash-completion/completions" \
	  "$(DESTDIR)$(DATADIR)/zsh/site-functions" "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d" \
	  "$(DESTDIR)$(DATADIR)/xdg-desktop-portal/portals" && \
	install -m 0644 dbus/coffer.portal "$(DESTDIR)$(DATADIR)/xdg-desktop-portal/portals/coffer.portal" && \
	install -m 0755 "$$bin/cofferd" "$(DESTDIR)$(BINDIR)/cofferd" && \
	install -m 0755 "$$bin/coffer" "$(DESTDIR)$(BINDIR)/coffer" && \
	"$$bin/cofferd" --experimental-dump-help | "$$bin/coffer-manual" --doc-dir "$(DOCDIR)" --see-also 'coffer(1)' > "$(DESTDIR)$(MANDIR)/man1/cofferd.1" && \
	"$$bin/coffer" --experimental-dump-help | "$$bin/coffer-manual" --doc-dir "$(DOCDIR)" --see-also 'cofferd(1)' --see-also 'secret-tool(1)' > "$(DESTDIR)$(MANDIR)/man1/coffer.1" && \
	install -m 0644 $(INSTALLED_DOCS) "$(DESTDIR)$(DOCDIR)/" && \
	"$$bin/coffer" --generate-completion-script bash > "$(DESTDIR)$(DATADIR)/bash-completion/completions/coffer" && \
	"$$bin/coffer" --generate-completion-script zsh > "$(DESTDIR)$(DATADIR)/zsh/site-functions/_coffer" && \
	"$$bin/coffer" --generate-completion-script fish > "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/coffer.fish" && \
	sed 's|@bindir@|$(BINDIR)|g' dbus/org.freedesktop.secrets.service.in \
	  > "$(DESTDIR)$(DBUS_SERVICES_DIR)/org.freedesktop.secrets.service" && \
	sed 's|@bindir@|$(BINDIR)|g' dbus/cofferd.service.in > "$(DESTDIR)$(SYSTEMD_USER_DIR)/cofferd.service" && \
	chmod 0644 "$(DESTDIR)$(MANDIR)/man1/cofferd.1" "$(DESTDIR)$(MANDIR)/man1/coffer.1" \
	  "$(DESTDIR)$(DATADIR)/bash-completion/completions/coffer" "$(DESTDIR)$(DATADIR)/zsh/site-functions/_coffer" \
	  "$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/coffer.fish" \
	  "$(DESTDIR)$(DBUS_SERVICES_DIR)/org.freedesktop.secrets.service" "$(DESTDIR)$(SYSTEMD_USER_DIR)/cofferd.service"
	@echo "installed under $(DESTDIR)$(PREFIX); a D-Bus session started after this activates cofferd on the first secret request"

# The Debian package: `make install` into a staging tree with PREFIX=/usr, a control file, and dpkg-deb. Depends
# names the package of every shared library the binaries load (the PackageTests suite checks this against ldd),
# a pinentry for password prompts, and libpam0g when the PAM module is in the package. packaging/preinst diverts
# gnome-keyring's activation file of the same name while coffer is installed.
VERSION := $(shell sed -n 's/.*static let string = "\(.*\)"/\1/p' Sources/cofferd/CofferVersion.swift)
DEB_ARCH := $(shell dpkg --print-architecture)
DEB_FILE = coffer_$(VERSION)_$(DEB_ARCH).deb
DEB_STAGE = $(CURDIR)/.build-static/deb-root
DEB_DEPENDS = libc6, libgcc-s1, libdbus-1-3, libgcrypt20, pinentry-curses | pinentry
DEB_MAINTAINER ?= Coffer maintainers <coffer@localhost>

deb: setup
	rm -rf "$(DEB_STAGE)"
	$(MAKE) install PREFIX=/usr DESTDIR="$(DEB_STAGE)"
	install -d "$(DEB_STAGE)/DEBIAN"
	install -m 0755 packaging/preinst packaging/postrm "$(DEB_STAGE)/DEBIAN/"
	@depends="$(DEB_DEPENDS)"; \
	if find "$(DEB_STAGE)" -name pam_coffer.so | grep -q .; then depends="$$depends, libpam0g"; fi; \
	{ echo "Package: coffer"; echo "Version: $(VERSION)"; echo "Architecture: $(DEB_ARCH)"; \
	  echo "Maintainer: $(DEB_MAINTAINER)"; echo "Installed-Size: $$(du -sk --exclude=DEBIAN "$(DEB_STAGE)" | cut -f1)"; \
	  echo "Depends: $$depends"; echo "Section: utils"; echo "Priority: optional"; \
	  echo "Description: Secret Service provider (org.freedesktop.secrets) and command-line tool"; \
	  echo " cofferd keeps passwords and other secrets for desktop applications, encrypted at rest, and serves"; \
	  echo " them over the Secret Service D-Bus API; coffer manages them from the command line."; \
	} > "$(DEB_STAGE)/DEBIAN/control"
	dpkg-deb --root-owner-group -Zxz --build "$(DEB_STAGE)" "$(DEB_FILE)"
	@ls -l "$(DEB_FILE)"

# Builds the package and a user install (PREFIX=~/.local of a sample home) and checks them: no Swift library in ldd,
# dpkg-deb's view of the package, binaries that run without the toolchain, a real apt install and removal in a
# throw-away overlay of this machine, files where systemd --user and the bus look. A release build with the static
# runtime, so kept out of `make test`; CI runs it.
USER_STAGE = $(CURDIR)/.build-static/user-root
USER_SAMPLE_HOME = /home/coffer-user

test-package: deb setup-test
	rm -rf "$(USER_STAGE)"
	$(MAKE) install PREFIX=$(USER_SAMPLE_HOME)/.local DESTDIR="$(USER_STAGE)"
	swift build --build-tests
	COFFER_PACKAGE_DEB="$(CURDIR)/$(DEB_FILE)" COFFER_PACKAGE_ROOT="$(DEB_STAGE)" \
	  COFFER_USER_INSTALL_ROOT="$(USER_STAGE)" COFFER_USER_INSTALL_HOME="$(USER_SAMPLE_HOME)" \
	  swift test --skip-build --filter PackageTests

# Checks the systemd user unit the way a user's systemd reads it, pointing at the local build (man pages are
# checked only once installed), and prints systemd's exposure score for its sandboxing. SystemdUnitSandboxTests runs
# the same check in `make test`, and the unit's command lines under its sandbox.
verify-unit:
	swift build -c $(CONFIGURATION) --product cofferd
	@unit="$$(mktemp -d)/cofferd.service"; \
	sed "s|@bindir@|$$(swift build -c $(CONFIGURATION) --show-bin-path)|g" dbus/cofferd.service.in > "$$unit"; \
	XDG_RUNTIME_DIR="$${XDG_RUNTIME_DIR:-$$(dirname "$$unit")}" systemd-analyze --user verify --man=no "$$unit" && \
	systemd-analyze security --offline=true "$$unit" | tail -1

clean:
	swift package clean

# The side-by-side benchmark (docs/PERFORMANCE.md): cofferd (the binary `make install` installs), gnome-keyring and a
# null provider, each on a private bus, driven by one C client. `make bench BENCH_MODE=quick` is a one-minute smoke
# run; BENCH_ARGS passes more runner options (--sizes, --rounds, --providers, --json FILE, --keychain-baseline
# OLD-keychain-bench, --library-only for the Keychain rows alone).
# The Keychain library's rows run keychain-bench beside a libsecret lookup compiled against libsecret-1-dev.
# access_cost.py then gives what access control (`ask`) costs a client using its own items, against `off`.
BENCH_PACKAGES = gcc libc6-dev python3 gnome-keyring libsecret-1-dev
BENCH_MODE ?= full
BENCH_ARGS ?=

.PHONY: bench symbol-order
bench: setup $(STATIC_CXX_DIR)/libstdc++.a
	$(call apt_install,$(BENCH_PACKAGES))
	$(STATIC_BUILD) --product cofferd
	$(STATIC_BUILD) --product coffer
	swift build -c release --product keychain-bench
	python3 Benchmarks/run.py --cofferd "$$($(STATIC_BUILD) --show-bin-path)/cofferd" \
	  --keychain-bench "$$(swift build -c release --show-bin-path)/keychain-bench" \
	  $(if $(filter quick,$(BENCH_MODE)),--quick) $(BENCH_ARGS)
	python3 Benchmarks/access_cost.py --cofferd "$$($(STATIC_BUILD) --show-bin-path)/cofferd" \
	  $(if $(filter quick,$(BENCH_MODE)),--turns 4)

# Regenerates Sources/cofferd/cofferd.order from an unstripped build with the same layout, run under callgrind.
SYMBOL_ORDER_PACKAGES = valgrind libsecret-tools python3-secretstorage python3-keyring
symbol-order: setup $(STATIC_CXX_DIR)/libstdc++.a
	$(call apt_install,$(SYMBOL_ORDER_PACKAGES))
	swift build -c release --static-swift-stdlib $(STATIC_LAYOUT) --scratch-path .build-order --product cofferd
	bash Benchmarks/symbol_order.sh "$$(swift build -c release --scratch-path .build-order --show-bin-path)/cofferd"

# Hostile input and memory errors (docs/RELIABILITY.md). The sanitizer and fuzzer runtimes come with the Swift
# toolchain; the builds use their own scratch paths, so the tests start the cofferd built the same way.
FUZZ_TARGETS ?= access-log collection-file dbus-message keyring-import public-key sync-journal
FUZZ_SECONDS ?= 60
# Leak checking is off: cofferd's exit paths (a taken name, a lost bus) leave the message being decoded, and the
# Swift runtime's caches, to the process's end.
# The suppressions cover only a read inside swift-corelibs-foundation (see the file).
ASAN_RUN_OPTIONS ?= halt_on_error=1:detect_leaks=0:suppressions=$(CURDIR)/.ci/asan-suppressions.txt
# The suppressions cover only what ThreadSanitizer cannot see on Linux (see the file).
TSAN_RUN_OPTIONS ?= halt_on_error=1:suppressions=$(CURDIR)/.ci/tsan-suppressions.txt
# Both sanitizers turn mlock into a no-op, so cofferd's refusal to run without lockable memory, and large secrets
# landing in locked pages, cannot show; the SIGKILL suites (minutes of kill -9, where no sanitizer gets to report)
# stay in `make test` to keep CI short. A sanitizer's build keeps its start-up pages (chardening.h), so the suite that
# checks their release runs in `make test` only.
SANITIZER_SKIP ?= SecureMemoryTests|largeBuffersLocked|CrashTests|KillPointTests|StartupPagesTests
# At most this many tests at once under a sanitizer. Unbounded, every integration suite starts its bus and its
# instrumented daemons together, and on a 2-core machine a few of them overran their time limits in three full
# ThreadSanitizer runs of four; eight at once passed all of them, in about a tenth more time.
SANITIZER_PARALLEL ?= 8
# The D-Bus fuzz test runs its full 10,000 calls in `make test`; under a sanitizer a shorter run suffices.
SANITIZER_FUZZ_CALLS ?= 2000

.PHONY: fuzz test-asan test-tsan reliability

fuzz: setup
	@for target in $(FUZZ_TARGETS); do Fuzz/run-target $$target $(FUZZ_SECONDS) || exit 1; done

test-asan: setup-test pam-module
	swift build --build-tests --sanitize=address --scratch-path .build-asan
	ASAN_OPTIONS=$(ASAN_RUN_OPTIONS) COFFER_FUZZ_CALLS=$(SANITIZER_FUZZ_CALLS) COFFER_FUZZ_RSS_LIMIT_MIB=1536 \
	  .ci/failures .build-asan/debug/CofferPackageTests.xctest --testing-library swift-testing --experimental-maximum-parallelization-width $(SANITIZER_PARALLEL) --skip '$(SANITIZER_SKIP)'

test-tsan: setup-test pam-module
	swift build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS=$(TSAN_RUN_OPTIONS) COFFER_FUZZ_CALLS=$(SANITIZER_FUZZ_CALLS) COFFER_FUZZ_RSS_LIMIT_MIB=3072 \
	  .ci/failures .build-tsan/debug/CofferPackageTests.xctest --testing-library swift-testing --experimental-maximum-parallelization-width $(SANITIZER_PARALLEL) --skip '$(SANITIZER_SKIP)'

reliability: setup-test
	FUZZ_TARGETS='$(FUZZ_TARGETS)' FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/reliability

# ---- PAM module (docs/PAM.md) ----
# pam_coffer.so is plain C built by the C compiler, not SwiftPM: it is loaded into login, sshd and gdm, which must
# not get the Swift runtime. It goes where libpam looks (the multiarch security directory) whatever PREFIX is, and
# starts $(BINDIR)/cofferd when no cofferd answers at login.
PAM_BUILD_PACKAGES = gcc libc6-dev libpam0g-dev
PAM_MODULE_DIR ?= /lib/$(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/security
PAM_BUILD_DIR = .build/pam
PAM_CFLAGS ?= -O2 -g -Wall -Wextra -Werror -fstack-protector-strong -D_FORTIFY_SOURCE=2

.PHONY: pam-module install-pam
pam-module: setup
	@mkdir -p $(PAM_BUILD_DIR)
	$(CC) $(PAM_CFLAGS) -fPIC -shared -Wl,-z,relro,-z,now -Wl,--no-undefined \
	  -DCOFFERD_PATH='"$(BINDIR)/cofferd"' -o $(PAM_BUILD_DIR)/pam_coffer.so pam/pam_coffer.c -lpam

install-pam: pam-module
	@if [ -z "$(DESTDIR)" ] && ! [ -w "$(PAM_MODULE_DIR)" ]; then \
	  echo "not installing pam_coffer.so: $(PAM_MODULE_DIR) is not writable (run as root, or set PAM_MODULE_DIR)"; \
	else \
	  install -d "$(DESTDIR)$(PAM_MODULE_DIR)" && \
	  install -m 0644 $(PAM_BUILD_DIR)/pam_coffer.so "$(DESTDIR)$(PAM_MODULE_DIR)/pam_coffer.so" && \
	  echo "installed $(PAM_MODULE_DIR)/pam_coffer.so; add it to /etc/pam.d as docs/PAM.md shows"; \
	fi

install: install-pam
