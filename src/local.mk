# The core: one folder and one static library per layer, lowest first.
# A layer calls only the layers listed before it (tests/build/layers.sh checks
# the archives with nm), and none of them includes curses.

include %D%/util/local.mk
include %D%/shell/local.mk
include %D%/sandbox/local.mk
include %D%/policy/local.mk
include %D%/report/local.mk
include %D%/undo/local.mk
include %D%/gitops/local.mk
include %D%/net/local.mk
include %D%/run/local.mk
include %D%/console/local.mk

# Everything that links the core: highest layer first.
CORE_LIBS = src/console/libconsole.a src/run/librun.a src/net/libnet.a \
	src/gitops/libgitops.a src/undo/libundo.a src/report/libreport.a \
	src/policy/libpolicy.a src/sandbox/libsandbox.a src/shell/libshell.a \
	src/util/libutil.a \
	$(CJSON_LIBS) $(SECCOMP_LIBS) $(CRYPTO_LIBS) -lpthread

include %D%/cli/local.mk
