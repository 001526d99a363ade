# cilknow — top-level build.  GNU make; everything is built out of tree
# under $(BUILD) (build/ by default, build/check for the sanitized test
# build).  See README for the two commands that matter.

PREFIX	?= /usr/local
DESTDIR	?=
BUILD	?= build
SANITIZE ?= 0
VERSION	:= 0.1.0

CC	?= cc
PKGS	:= libsodium libbsd-overlay
WARN	:= -Wall -Wextra -Wmissing-prototypes -Wshadow -Wcast-qual \
	   -Wsign-compare -Wstrict-prototypes -Wpointer-arith
CFLAGS	?= -O2 -g
ifeq ($(SANITIZE),1)
CFLAGS	:= -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	   -fno-sanitize-recover=undefined -Werror
LDFLAGS	+= -fsanitize=address,undefined
endif
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DCILKNOW_VERSION='"$(VERSION)"' \
	     -Iinclude $(WARN) $(CFLAGS) $(shell pkg-config --cflags $(PKGS))
LIBS	= $(shell pkg-config --libs $(PKGS)) -lm

# Build dependencies, as Debian package names (see README).
BUILD_DEPS := build-essential pkg-config libsodium-dev libbsd-dev mandoc
CHECK_DEPS := clang libclang-rt-14-dev valgrind python3

LIB_SRC	:= $(sort $(wildcard src/*/*.c))
LIB_OBJ	:= $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
LIB	:= $(BUILD)/lib/libcilknow.a

DAEMONS	:= $(notdir $(wildcard daemons/*))
UTILS	:= $(notdir $(wildcard utils/*))
PROGS	:= $(DAEMONS:%=$(BUILD)/sbin/%) $(UTILS:%=$(BUILD)/bin/%)
# Parallel programs of the runtime (cilknow(3)), installed with the
# utilities, and their plain serial versions for tests/bench.
EXAMPLES := $(basename $(notdir $(wildcard examples/*.c)))
SERIAL	:= $(basename $(notdir $(wildcard examples/serial/*.c)))
PROGS	+= $(EXAMPLES:%=$(BUILD)/bin/%) $(SERIAL:%=$(BUILD)/tests/%)

UNIT_SRC := $(sort $(wildcard tests/unit/*_test.c))
UNIT	:= $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TOOL_SRC := $(sort $(wildcard tests/tools/*.c))
TOOLS	:= $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tests/%)

MAN	:= $(sort $(wildcard man/*.[1-8]))

.PHONY: all deps check-deps check check-valgrind fuzz bench demo install \
	uninstall clean lint-man
.DELETE_ON_ERROR:
.SECONDARY:

all: deps $(LIB) $(PROGS)

# Installs what is missing: with apt-get as root, otherwise it prints the
# exact command and fails.
deps:
	@sh tests/install-deps.sh $(BUILD_DEPS)
check-deps:
	@sh tests/install-deps.sh $(BUILD_DEPS) $(CHECK_DEPS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	$(AR) rcs $@ $^

define prog_rule
$(BUILD)/$(1)/$(2): $$(patsubst %.c,$(BUILD)/obj/%.o,$$(wildcard $(3)/$(2)/*.c)) $(LIB)
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LIBS)
endef
$(foreach d,$(DAEMONS),$(eval $(call prog_rule,sbin,$(d),daemons)))
$(foreach u,$(UTILS),$(eval $(call prog_rule,bin,$(u),utils)))
$(foreach e,$(EXAMPLES),$(eval $(BUILD)/bin/$(e): $(BUILD)/obj/examples/$(e).o $(LIB) ; @mkdir -p $$(@D) && $$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LIBS)))
$(foreach e,$(SERIAL),$(eval $(BUILD)/tests/$(e): $(BUILD)/obj/examples/serial/$(e).o ; @mkdir -p $$(@D) && $$(CC) $$(LDFLAGS) -o $$@ $$^))

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)
$(BUILD)/tests/%: $(BUILD)/obj/tests/tools/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

testprogs: $(UNIT) $(TOOLS)

# The whole suite, built with AddressSanitizer and UBSan, then the unit
# tests and a ping exchange under valgrind on the plain build; ends with
# the line "N passed, N failed".
check: check-deps
	$(MAKE) BUILD=build/check SANITIZE=1 all testprogs
	$(MAKE) BUILD=build/fuzz fuzz-build
	$(MAKE) BUILD=build all testprogs
	sh tests/run.sh build/check build/fuzz build

# Unit tests and a ping exchange under valgrind, on the plain build.
check-valgrind: check-deps all testprogs
	sh tests/valgrind.sh $(BUILD)

FUZZ_SRC := $(sort $(wildcard tests/fuzz/*.c))
FUZZ	:= $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/%)
FUZZ_CFLAGS := -std=c11 -D_GNU_SOURCE -DCILKNOW_VERSION='"$(VERSION)"' \
	-Iinclude -g -O1 -fsanitize=fuzzer,address,undefined \
	$(shell pkg-config --cflags $(PKGS))
fuzz-build: $(FUZZ)
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_SRC)
	@mkdir -p $(@D)
	clang $(FUZZ_CFLAGS) -o $@ $^ $(LIBS)
# A longer fuzzing session than the one make check runs.
FUZZ_SECONDS ?= 300
fuzz: check-deps
	$(MAKE) BUILD=build/fuzz fuzz-build
	sh tests/fuzz/run.sh build/fuzz $(FUZZ_SECONDS)

bench: deps all
	sh tests/bench/run.sh $(BUILD)

demo: deps all
	bash tests/demo.sh $(BUILD)

lint-man:
	mandoc -Tlint -Wwarning $(MAN)

install: all
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/bin
	$(foreach d,$(DAEMONS),install -m 0755 $(BUILD)/sbin/$(d) $(DESTDIR)$(PREFIX)/sbin/$(d);)
	$(foreach u,$(UTILS) $(EXAMPLES),install -m 0755 $(BUILD)/bin/$(u) $(DESTDIR)$(PREFIX)/bin/$(u);)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib
	install -m 0644 include/cilknow.h $(DESTDIR)$(PREFIX)/include/cilknow.h
	install -m 0644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libcilknow.a
	$(foreach m,$(MAN),install -d $(DESTDIR)$(PREFIX)/share/man/man$(subst .,,$(suffix $(m))) && \
		install -m 0644 $(m) $(DESTDIR)$(PREFIX)/share/man/man$(subst .,,$(suffix $(m)))/;)
	ln -sf queens.1 $(DESTDIR)$(PREFIX)/share/man/man1/fib.1
	ln -sf queens.1 $(DESTDIR)$(PREFIX)/share/man/man1/mandelbrot.1
	install -d $(DESTDIR)$(PREFIX)/share/doc/cilknow/examples
	install -m 0644 conf/cilknow.conf $(DESTDIR)$(PREFIX)/share/doc/cilknow/examples/

uninstall:
	$(foreach d,$(DAEMONS),rm -f $(DESTDIR)$(PREFIX)/sbin/$(d);)
	$(foreach u,$(UTILS) $(EXAMPLES),rm -f $(DESTDIR)$(PREFIX)/bin/$(u);)
	rm -f $(DESTDIR)$(PREFIX)/include/cilknow.h $(DESTDIR)$(PREFIX)/lib/libcilknow.a
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/fib.1 $(DESTDIR)$(PREFIX)/share/man/man1/mandelbrot.1
	$(foreach m,$(MAN),rm -f $(DESTDIR)$(PREFIX)/share/man/man$(subst .,,$(suffix $(m)))/$(notdir $(m));)
	rm -f $(DESTDIR)$(PREFIX)/share/doc/cilknow/examples/cilknow.conf
	-rmdir $(DESTDIR)$(PREFIX)/share/doc/cilknow/examples $(DESTDIR)$(PREFIX)/share/doc/cilknow

clean:
	rm -rf build

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
