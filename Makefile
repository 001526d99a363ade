# cilknow — top-level build.  GNU make; everything is built out of tree
# under $(BUILD) (build/ by default, build/check for the sanitized test
# build).  See README for the two commands that matter.

PREFIX	?= /usr/local
DESTDIR	?=
BUILD	?= build
SANITIZE ?= 0
VERSION	:= 0.1.0

CC	?= cc
# make check builds with this many jobs at once
JOBS	?= $(shell nproc 2>/dev/null || echo 1)
PKGS	:= libsodium libbsd-overlay libsystemd munge sqlite3
WARN	:= -Wall -Wextra -Wmissing-prototypes -Wshadow -Wcast-qual \
	   -Wsign-compare -Wstrict-prototypes -Wpointer-arith
CFLAGS	?= -O2 -g
ifeq ($(SANITIZE),1)
CFLAGS	:= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	   -fno-sanitize-recover=undefined -Werror
# libubsan linked in: shared, its 6 MB of zeroed data was scanned by
# LeakSanitizer at every exit, 40 ms of CPU for each of the thousands
# of short-lived sanitized processes a make check starts.
LDFLAGS	+= -fsanitize=address,undefined -static-libubsan
endif
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DCILKNOW_VERSION='"$(VERSION)"' \
	     -Iinclude $(WARN) $(CFLAGS) $(PKG_CFLAGS)
LIBS	= $(PKG_LIBS) -lm
# Asked once, when first needed: by then deps has installed pkg-config.
PKG_CFLAGS = $(eval PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null))$(PKG_CFLAGS)
PKG_LIBS = $(eval PKG_LIBS := $(shell pkg-config --libs $(PKGS) 2>/dev/null))$(PKG_LIBS)

LIB_SRC	:= $(sort $(wildcard src/*/*.c))
LIB_OBJ	:= $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
# Every library under src/, for the daemons, utilities and tests.
INTERNAL := $(BUILD)/obj/libinternal.a
# The runtime of cilknow(3), as installed: it exports the names of
# cilknow.h alone (RUNTIME_SYMS; tests/unit/libcilknow_test.c keeps the
# two equal), so that a program may have a log_info of its own.
LIB	:= $(BUILD)/lib/libcilknow.a
RUNTIME_SYMS := src/runtime/cilknow.sym
OBJCOPY	?= objcopy

DAEMONS	:= $(notdir $(wildcard daemons/*))
UTILS	:= $(notdir $(wildcard utils/*))
PROGS	:= $(DAEMONS:%=$(BUILD)/sbin/%) $(UTILS:%=$(BUILD)/bin/%)
# Parallel programs of the runtime (cilknow(3)), installed with the
# utilities, and their plain serial versions for tests/bench.
EXAMPLE_PROGS := $(basename $(notdir $(wildcard examples/*.c)))
SERIAL	:= $(basename $(notdir $(wildcard examples/serial/*.c)))
PROGS	+= $(EXAMPLE_PROGS:%=$(BUILD)/bin/%) $(SERIAL:%=$(BUILD)/tests/%)

UNIT_SRC := $(sort $(wildcard tests/unit/*_test.c))
UNIT	:= $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRC := $(sort $(filter-out tests/tools/lossy.c,$(wildcard tests/tools/*.c)))
TOOLS	:= $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/%) $(BUILD)/tests/lossy.so

MAN	:= $(sort $(wildcard man/*.[1-8]))

.PHONY: all deps check-deps check check-fresh check-cluster check-valgrind fuzz \
	check-builds check-build-check check-build-plain check-build-fuzz \
	chaos bench demo install uninstall clean lint-man lint-cycles conf-gen FORCE deb check-deb
.DELETE_ON_ERROR:
.SECONDARY:

all: deps $(LIB) $(PROGS) $(BUILD)/lib/pkgconfig/cilknow.pc

# Installs what is missing: with apt-get as root, otherwise it prints the
# exact command and fails.
# The package lists are in tests/install-deps.sh (see README).
deps:
	@sh tests/install-deps.sh build
check-deps:
	@sh tests/install-deps.sh build check cluster

# Order-only: under make -j nothing compiles before deps has installed
# the compiler.
$(BUILD)/obj/%.o: %.c | deps
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# What -V prints is compiled in: rebuild it whenever VERSION changes, so
# that a package's programs never report another version than it has.
$(BUILD)/.version: FORCE
	@mkdir -p $(@D)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' >$@
$(BUILD)/obj/src/common/cli.o $(BUILD)/obj/utils/CilkSim/main.o: \
	$(BUILD)/.version

$(INTERNAL): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

# Visibility attributes do nothing for a static archive (a hidden
# symbol still links like any other), so the runtime is one relocatable
# object: ld -r takes from INTERNAL what the public names need, and
# objcopy makes every other name local to it.  libsodium's and libbsd's
# names stay undefined, for the program's link to resolve.
$(BUILD)/obj/cilknow.o: $(INTERNAL) $(RUNTIME_SYMS)
	$(LD) -r -o $@.all $(addprefix -u ,$(shell grep -E '^[a-z_]' \
	    $(RUNTIME_SYMS))) $(INTERNAL)
	$(OBJCOPY) --keep-global-symbols=$(RUNTIME_SYMS) $@.all $@
	rm -f $@.all
$(LIB): $(BUILD)/obj/cilknow.o
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

define prog_rule
$(BUILD)/$(1)/$(2): $$(patsubst %.c,$(BUILD)/obj/%.o,$$(wildcard $(3)/$(2)/*.c)) $(INTERNAL)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LIBS)
endef
$(foreach d,$(DAEMONS),$(eval $(call prog_rule,sbin,$(d),daemons)))
$(foreach u,$(UTILS),$(eval $(call prog_rule,bin,$(u),utils)))
$(foreach e,$(EXAMPLE_PROGS),$(eval $(BUILD)/bin/$(e): $(BUILD)/obj/examples/$(e).o $(LIB) ; @mkdir -p $$(@D) && $$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LIBS)))
# cilknow.pc for programs built against this tree (cilknow(3)):
# PKG_CONFIG_PATH=$(BUILD)/lib/pkgconfig.
$(BUILD)/lib/pkgconfig/cilknow.pc: conf/cilknow.pc.in $(BUILD)/conf/.paths
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(abspath $(BUILD))|g' \
	    -e 's|@LIBDIR@|$(abspath $(BUILD))/lib|g' \
	    -e 's|@INCLUDEDIR@|$(CURDIR)/include|g' \
	    -e 's|@VERSION@|$(VERSION)|g' \
	    $(if $(filter 1,$(SANITIZE)),-e 's|^Libs: |Libs: $(filter -fsanitize=%,$(LDFLAGS)) |') \
	    $< >$@
$(foreach e,$(SERIAL),$(eval $(BUILD)/tests/$(e): $(BUILD)/obj/examples/serial/$(e).o ; @mkdir -p $$(@D) && $$(CC) $$(LDFLAGS) -o $$@ $$^))

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(INTERNAL)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)
# The simulation runs the clearinghouse's own handlers.
$(BUILD)/tests/chsim_test: $(BUILD)/obj/tests/unit/chsim_test.o \
    $(BUILD)/obj/daemons/CilkChouse/chouse.o \
    $(BUILD)/obj/daemons/CilkChouse/jobmgr.o $(INTERNAL)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)
# A program of a user: the installed runtime alone.
$(BUILD)/tests/libcilknow_test: $(BUILD)/obj/tests/unit/libcilknow_test.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)
$(BUILD)/tests/%: $(BUILD)/obj/tests/tools/%.o $(INTERNAL)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# xCilkNodeInfo draws with cairo on plain Xlib (README says why): only
# it, its unit test (its model and drawing) and the test tool that reads
# pictures (imgpix) are built with them.
XPKGS	:= cairo x11 fontconfig
XPKG_CFLAGS = $(eval XPKG_CFLAGS := $(shell pkg-config --cflags $(XPKGS) 2>/dev/null))$(XPKG_CFLAGS)
XPKG_LIBS = $(eval XPKG_LIBS := $(shell pkg-config --libs $(XPKGS) 2>/dev/null))$(XPKG_LIBS)
$(BUILD)/obj/utils/xCilkNodeInfo/%.o $(BUILD)/obj/tests/unit/xview_test.o \
    $(BUILD)/obj/tests/tools/imgpix.o: ALL_CFLAGS += $(XPKG_CFLAGS)
$(BUILD)/bin/xCilkNodeInfo $(BUILD)/tests/imgpix: LIBS += $(XPKG_LIBS)
$(BUILD)/tests/xview_test: $(BUILD)/obj/tests/unit/xview_test.o \
    $(BUILD)/obj/utils/xCilkNodeInfo/model.o \
    $(BUILD)/obj/utils/xCilkNodeInfo/draw.o \
    $(BUILD)/obj/utils/xCilkNodeInfo/png.o $(INTERNAL)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) $(XPKG_LIBS)

# The chaos test's lossy network, preloaded into the programs it runs:
# never sanitized, since AddressSanitizer must come first in a process.
$(BUILD)/tests/lossy.so: tests/tools/lossy.c | deps
	@mkdir -p $(@D)
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -Werror -O2 -g -fPIC -shared \
	    -o $@ $< -ldl -lpthread

testprogs: $(UNIT) $(TOOLS)

# The whole suite, built with AddressSanitizer and UBSan, then the unit
# tests and a ping exchange under valgrind on the plain build, and the
# container cluster (check-cluster) with the plain build's package,
# beside them; ends with the line "N passed, N failed, N skipped".
check: check-deps
	$(MAKE) -j$(JOBS) check-builds
	bash tests/run.sh build/check build/fuzz build
# The three builds of make check side by side, sharing $(JOBS) jobs (one
# jobserver): one build's links and package overlap another's compiles.
# (Built beside the tests instead, the fuzzers saved 6 s here and cost
# more there.)  The package is the cluster test's: xz -1.
check-builds: check-build-check check-build-plain check-build-fuzz
check-build-check:
	$(MAKE) BUILD=build/check SANITIZE=1 all testprogs
check-build-plain:
	$(MAKE) BUILD=build all testprogs
	$(MAKE) BUILD=build CILKNOW_DEB_XZ=1 deb
check-build-fuzz:
	$(MAKE) BUILD=build/fuzz fuzz-build

# The README's two commands in a fresh Debian 12 chroot, as root and as
# a user (tests/fresh.sh; needs root and the network to Debian's archive).
check-fresh:
	bash tests/fresh.sh

# Unit tests and a ping exchange under valgrind, on the plain build.
check-valgrind: check-deps all testprogs
	sh tests/valgrind.sh $(BUILD)

FUZZ_SRC := $(sort $(wildcard tests/fuzz/*.c))
FUZZ	:= $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/%)
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -DCILKNOW_VERSION='"$(VERSION)"' \
	-Iinclude -g -O1 $(shell pkg-config --cflags $(PKGS))
# The library once, instrumented for coverage; each target links it.
# Only the parts the targets link from (the decoders and what they
# call: 62 of 108 files, a third of make check's fuzz build); a target
# that needs another part fails to link, naming what to add here.
FUZZ_LIB_SRC := $(filter $(foreach d,common msg proto pred lpad stage \
	nmpriv priv,src/$(d)/%) src/runtime/cn_wire.c src/runtime/cn_swire.c \
	src/runtime/cn_ckpt.c,$(LIB_SRC))
FUZZ_LIB_OBJ := $(FUZZ_LIB_SRC:%.c=$(BUILD)/fobj/%.o)
fuzz-build: $(FUZZ)
$(BUILD)/fobj/%.o: %.c
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined \
	    -MMD -MP -c $< -o $@
$(BUILD)/libfuzz.a: $(FUZZ_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/libfuzz.a
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $^ \
	    $(LIBS)
# A longer fuzzing session than the one make check runs.
FUZZ_SECONDS ?= 300
fuzz: check-deps
	$(MAKE) -j$(JOBS) BUILD=build/fuzz fuzz-build
	sh tests/fuzz/run.sh build/fuzz $(FUZZ_SECONDS)

# The runtime on a live cluster under faults (tests/chaos/run.py):
# CHAOS_RUNS seeded runs, or the one run CHAOS_SEED (CHAOS_SHORT=1: the
# short programs of make check's 0840-chaos); CHAOS_LOCK: a file to
# flock around each run.  Logs of failing runs: $(BUILD)/chaos-failed.
CHAOS_RUNS ?= 50
chaos: deps all $(BUILD)/tests/lossy.so
	python3 tests/chaos/run.py --build $(BUILD) --runs $(CHAOS_RUNS) \
	    $(if $(CHAOS_SEED),--seed $(CHAOS_SEED)) \
	    $(if $(filter 1,$(CHAOS_SHORT)),--short) \
	    $(if $(CHAOS_LOCK),--lock $(CHAOS_LOCK))

# broker.sh's pretend nodes (tests/tools/fakenodes), auth.sh's tools
bench: deps all testprogs
	sh tests/bench/run.sh $(BUILD)

demo: deps all
	bash tests/demo.sh $(BUILD)

lint-man:
	mandoc -Tlint -Wwarning $(MAN)

# No loop of files that call each other in a daemon's or utility's folder
lint-cycles:
	sh tests/lint-cycles.sh

# ---- install, uninstall ------------------------------------------------
# Daemons to SBINDIR, utilities to BINDIR (every program the rules above
# build), man pages, and conf/ as samples in EXAMPLEDIR; never anything
# in /etc.  SYSCONFDIR, RUNSTATEDIR and LOCALSTATEDIR are only written
# into the samples (init scripts, units, logrotate): the programs'
# own defaults are /etc/cilknow, /run/cilknow and /var/lib/cilknow.
SBINDIR	?= $(PREFIX)/sbin
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
DOCDIR	?= $(PREFIX)/share/doc/cilknow
EXAMPLEDIR ?= $(DOCDIR)/examples
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR	?= $(PREFIX)/lib
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
SYSCONFDIR ?= /etc
RUNSTATEDIR ?= /run
LOCALSTATEDIR ?= /var

# The runtime for parallel programs: once its public header exists,
# install adds the header, the library and cilknow.pc.  More public
# headers: add them here.
RUNTIME_HDRS := $(wildcard include/cilknow.h)

# conf/ as installed, relative to EXAMPLEDIR; X.in is a template of X.
INITD	:= cilknow-broker cilknow-nodemanager
CONF_PLAIN := $(sort $(patsubst conf/%,%,$(filter-out %.in conf/debian/%,\
	$(wildcard conf/*.conf conf/*/*))))
CONF_TMPL := $(filter-out init.d/% debian/%,$(patsubst conf/%.in,%,\
	$(wildcard conf/*/*.in)))
CONF_GEN := $(CONF_TMPL:%=$(BUILD)/conf/%) $(INITD:%=$(BUILD)/conf/init.d/%) \
	$(BUILD)/conf/cilknow.pc
EXAMPLES := $(CONF_PLAIN) $(CONF_TMPL) $(INITD:%=init.d/%)

SUBST	= sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@BINDIR@|$(BINDIR)|g' \
	  -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	  -e 's|@RUNSTATEDIR@|$(RUNSTATEDIR)|g' \
	  -e 's|@LOCALSTATEDIR@|$(LOCALSTATEDIR)|g' \
	  -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	  -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g'
SUBST_PATHS = $(SBINDIR) $(BINDIR) $(SYSCONFDIR) $(RUNSTATEDIR) \
	$(LOCALSTATEDIR) $(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(VERSION)
# The paths are baked in: rebuild the samples whenever they change.
$(BUILD)/conf/.paths: FORCE
	@mkdir -p $(@D)
	@echo '$(SUBST_PATHS)' | cmp -s - $@ || echo '$(SUBST_PATHS)' >$@
$(BUILD)/conf/%: conf/%.in $(BUILD)/conf/.paths
	@mkdir -p $(@D)
	$(SUBST) $< >$@
$(BUILD)/conf/init.d/cilknow-broker: conf/init.d/cilknow.in $(BUILD)/conf/.paths
	@mkdir -p $(@D)
	$(SUBST) -e 's|@NAME@|cilknow-broker|g' -e 's|@DAEMON@|CilkJobBroker|g' \
	    -e 's|@WHAT@|cilknow job broker|g' $< >$@
$(BUILD)/conf/init.d/cilknow-nodemanager: conf/init.d/cilknow.in $(BUILD)/conf/.paths
	@mkdir -p $(@D)
	$(SUBST) -e 's|@NAME@|cilknow-nodemanager|g' \
	    -e 's|@DAEMON@|CilkNodeManager|g' \
	    -e 's|@WHAT@|cilknow node manager|g' $< >$@
conf-gen: $(CONF_GEN)
FORCE:

# Examples that share queens(1): their pages are links to it.
MAN_LINKS := fib.1 mandelbrot.1 cilkfib.1 cilksort.1 matmul.1 knapsack.1 \
	pi.1

# Every file install puts in place, for uninstall.
INSTALLED := $(patsubst $(BUILD)/sbin/%,$(SBINDIR)/%,$(filter $(BUILD)/sbin/%,$(PROGS))) \
	$(patsubst $(BUILD)/bin/%,$(BINDIR)/%,$(filter $(BUILD)/bin/%,$(PROGS))) \
	$(foreach m,$(MAN),$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(notdir $(m))) \
	$(MAN_LINKS:%=$(MANDIR)/man1/%) \
	$(EXAMPLES:%=$(EXAMPLEDIR)/%) \
	$(if $(RUNTIME_HDRS),$(RUNTIME_HDRS:include/%=$(INCLUDEDIR)/%) \
	    $(LIBDIR)/libcilknow.a $(PKGCONFIGDIR)/cilknow.pc)

install: all conf-gen
	@set -e; d='$(DESTDIR)'; \
	inst() { install -D -m "$$1" "$$2" "$$d$$3"; echo "  $$d$$3"; }; \
	for p in $(filter $(BUILD)/sbin/%,$(PROGS)); do \
		inst 0755 $$p $(SBINDIR)/$${p##*/}; done; \
	for p in $(filter $(BUILD)/bin/%,$(PROGS)); do \
		inst 0755 $$p $(BINDIR)/$${p##*/}; done; \
	for m in $(MAN); do \
		inst 0644 $$m $(MANDIR)/man$${m##*.}/$${m##*/}; done; \
	for l in $(MAN_LINKS); do \
		ln -sf queens.1 "$$d$(MANDIR)/man1/$$l"; \
		echo "  $$d$(MANDIR)/man1/$$l -> queens.1"; done; \
	for f in $(CONF_PLAIN); do \
		inst 0644 conf/$$f $(EXAMPLEDIR)/$$f; done; \
	for f in $(CONF_TMPL); do \
		inst 0644 $(BUILD)/conf/$$f $(EXAMPLEDIR)/$$f; done; \
	for f in $(INITD); do \
		inst 0755 $(BUILD)/conf/init.d/$$f $(EXAMPLEDIR)/init.d/$$f; done; \
	for h in $(RUNTIME_HDRS); do \
		inst 0644 $$h $(INCLUDEDIR)/$${h#include/}; \
		inst 0644 $(LIB) $(LIBDIR)/libcilknow.a; \
		inst 0644 $(BUILD)/conf/cilknow.pc $(PKGCONFIGDIR)/cilknow.pc; \
	done

# Removes exactly the files install put in place, and the folders that
# are cilknow's own once empty; shared folders (bin, man1) stay.
uninstall:
	@for f in $(INSTALLED); do \
		if [ -e "$(DESTDIR)$$f" ] || [ -L "$(DESTDIR)$$f" ]; then \
			rm -f "$(DESTDIR)$$f" && echo "  removed $(DESTDIR)$$f"; fi; \
	done
	@for d in $(filter-out $(EXAMPLEDIR)/,$(sort $(dir \
	    $(EXAMPLES:%=$(EXAMPLEDIR)/%)))) $(EXAMPLEDIR) \
	    $(DOCDIR); do \
		[ ! -d "$(DESTDIR)$$d" ] || rmdir "$(DESTDIR)$$d" 2>/dev/null || \
		echo "  kept $(DESTDIR)$$d: not empty"; \
	done

# ---- Debian package ---------------------------------------------------
# make deb: build/cilknow_VERSION_ARCH.deb and cilknow-x11 (xCilkNodeInfo)
# beside it, built with dpkg-deb from a staged make install
# (conf/debian/build-deb.sh says how).
# make check-deb: build, install, upgrade, remove, purge and lint it on
# this machine (root and dpkg only; skipped otherwise).
# The package has the version its programs print (-V): VERSION above,
# or make deb VERSION=X, which rebuilds what prints it.
deb: all conf-gen
	sh conf/debian/build-deb.sh $(BUILD) $(BUILD)
# Three systemd-nspawn containers on a bridge of their own, the .deb
# in each: tests/cluster/run.sh.  make check runs it too.
check-cluster:
	@sh tests/install-deps.sh build check cluster
	$(MAKE) deb
	bash tests/cluster/run.sh $(BUILD)
check-deb: all
	CILKNOW_BUILD=$(abspath $(BUILD)) CILKNOW_TOP=$(CURDIR) \
	    bash tests/integration/0945-deb.sh

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' -type f 2>/dev/null)
