/*
 * helper-act: the delegate that makes the calls bwgate judged, inside the
 * sandbox, with the sandbox's credentials and mounts (observe-proto.h).
 */
#ifndef BWGATE_HELPER_ACT_H
#define BWGATE_HELPER_ACT_H

/* Fork the delegate (before the filter is installed; it is reparented to
   the sandbox's init and ends when bwgate closes its socket). bwgate's end
   of the socket, or -1 with errno. */
int	helper_act_start(void);

#endif
