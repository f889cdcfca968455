/* ctl-peer.h - who is at the other end of a loopback TCP connection.
 *
 * Contract: ctl_peer_user() asks the kernel (sock_diag, NETLINK_SOCK_DIAG)
 * for the socket at the other end of an accepted connection, by its exact
 * addresses and ports, and gives the user that made it.  Only a peer on a
 * loopback address (127.0.0.0/8, ::1, or 127.x as an IPv4-mapped IPv6
 * address) is looked up: its socket is of this host and this network
 * namespace, so its owner is known to the kernel; any other peer, or one
 * whose socket is not found (closed meanwhile), is -1.  Nothing is
 * trusted from the peer but its addresses, which the kernel gave.
 */
#ifndef SPPROF_CTL_PEER_H
#define SPPROF_CTL_PEER_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

/* peer: the client's address (as accept() gave it); local: the server's
 * end of the same connection.  0 with *uid set, or -1. */
int ctl_peer_user(const struct sockaddr *peer, const struct sockaddr *local,
		  uid_t *uid);

/* Whether address is a loopback address (see above). */
bool ctl_peer_is_loopback(const struct sockaddr *address);

#endif /* SPPROF_CTL_PEER_H */
