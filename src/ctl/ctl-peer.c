/* ctl-peer.c - the owner of a loopback peer's socket (see ctl-peer.h). */
#include "config.h"

#include "ctl-peer.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>

/* An address of either family, reduced to what sock_diag compares: an
 * IPv4-mapped IPv6 address is the IPv4 address it maps, which is how the
 * client's own socket knows it. */
struct endpoint {
	int family;
	unsigned char address[16];
	in_port_t port; /* network order */
};

static int endpoint_of(const struct sockaddr *a, struct endpoint *e)
{
	memset(e, 0, sizeof(*e));
	if (a->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)a;

		e->family = AF_INET;
		memcpy(e->address, &in->sin_addr, 4);
		e->port = in->sin_port;
		return 0;
	}
	if (a->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)a;

		e->port = in6->sin6_port;
		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
			e->family = AF_INET;
			memcpy(e->address, &in6->sin6_addr.s6_addr[12], 4);
		} else {
			e->family = AF_INET6;
			memcpy(e->address, &in6->sin6_addr, 16);
		}
		return 0;
	}
	return -1;
}

static bool endpoint_is_loopback(const struct endpoint *e)
{
	static const unsigned char ipv6_loopback[16] = { [15] = 1 };

	return e->family == AF_INET ? e->address[0] == 127
				    : memcmp(e->address, ipv6_loopback, 16) == 0;
}

bool ctl_peer_is_loopback(const struct sockaddr *address)
{
	struct endpoint e;

	return endpoint_of(address, &e) == 0 && endpoint_is_loopback(&e);
}

/* The one socket whose source is `from` and destination `to`: the
 * kernel looks it up by that exact pair when the request is not a dump. */
static int ask_owner(int netlink, const struct endpoint *from,
		     const struct endpoint *to, uid_t *uid)
{
	struct {
		struct nlmsghdr header;
		struct inet_diag_req_v2 request;
	} question = {
		.header = { .nlmsg_len = sizeof(question),
			    .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			    .nlmsg_flags = NLM_F_REQUEST },
		.request = { .sdiag_family = (unsigned char)from->family,
			     .sdiag_protocol = IPPROTO_TCP,
			     .idiag_states = ~0u,
			     .id = { .idiag_sport = from->port,
				     .idiag_dport = to->port,
				     .idiag_cookie = { INET_DIAG_NOCOOKIE,
						       INET_DIAG_NOCOOKIE } } },
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	union {
		struct nlmsghdr header;
		char bytes[1024];
	} answer;
	const struct inet_diag_msg *found;
	ssize_t n;

	memcpy(question.request.id.idiag_src, from->address, 16);
	memcpy(question.request.id.idiag_dst, to->address, 16);
	if (sendto(netlink, &question, sizeof(question), 0,
		   (const struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -1;
	do
		n = recv(netlink, &answer, sizeof(answer), 0);
	while (n < 0 && errno == EINTR);
	if (n < (ssize_t)NLMSG_LENGTH(sizeof(*found)) ||
	    !NLMSG_OK(&answer.header, (size_t)n) ||
	    answer.header.nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return -1;
	found = NLMSG_DATA(&answer.header);
	/* The kernel matched the pair; check it did, not a neighbour. */
	if (found->id.idiag_sport != from->port ||
	    found->id.idiag_dport != to->port)
		return -1;
	*uid = (uid_t)found->idiag_uid;
	return 0;
}

int ctl_peer_user(const struct sockaddr *peer, const struct sockaddr *local,
		  uid_t *uid)
{
	struct endpoint from, to;
	int netlink, rc;

	if (endpoint_of(peer, &from) < 0 || endpoint_of(local, &to) < 0 ||
	    !endpoint_is_loopback(&from) || from.family != to.family)
		return -1;
	netlink = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
			 NETLINK_SOCK_DIAG);
	if (netlink < 0)
		return -1;
	rc = ask_owner(netlink, &from, &to, uid);
	close(netlink);
	return rc;
}
