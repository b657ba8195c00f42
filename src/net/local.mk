# net: the one way out of a sandbox that may reach named hosts: the proxy
# (netproxy), its questions to the operator (netask) and the user-mode
# network stack (netstack). Calls sandbox (domains, runner) and util only.
noinst_LIBRARIES += %D%/libnet.a
%C%_libnet_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
%C%_libnet_a_SOURCES = \
	%D%/netstack.c %D%/netstack.h \
	%D%/netproxy.c %D%/netproxy-conn.c %D%/netproxy.h %D%/netproxy-int.h \
	%D%/netask.c %D%/netask.h
