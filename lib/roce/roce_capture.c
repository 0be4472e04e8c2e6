/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Built-in packet capture of a port: every frame through every RX and TX
 * queue of its ethdev, written to a classic pcap (roce_pcap.c) that tshark
 * and roce_dump read. It works where DPDK's pdump cannot: --in-memory or
 * --no-shconf processes, which have no secondary process to hand frames to.
 * The frames are seen in the ethdev callbacks, so a frame the port drops is
 * captured too, and a frame the TX queue refuses is captured at each try.
 */

#include <errno.h>
#include <time.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_spinlock.h>

#include "rte_roce_pcap.h"
#include "rte_roce_port.h"
#include "roce_log.h"
#include "roce_port_priv.h"

#define ROCE_NS_PER_S 1000000000ull

struct roce_capture {
	struct rte_roce_pcap *pcap;
	/* Queues of several workers write into one file. */
	rte_spinlock_t lock;
	uint16_t nb_rxq;
	uint16_t nb_txq;
	const struct rte_eth_rxtx_callback *rx_cb[RTE_MAX_QUEUES_PER_PORT];
	const struct rte_eth_rxtx_callback *tx_cb[RTE_MAX_QUEUES_PER_PORT];
};

static void
capture_write(struct roce_capture *cap, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct timespec ts;
	uint64_t ns;
	uint16_t i;

	/* Wall-clock time, as pcap readers expect; one reading per burst. */
	clock_gettime(CLOCK_REALTIME, &ts);
	ns = ts.tv_sec * ROCE_NS_PER_S + ts.tv_nsec;
	rte_spinlock_lock(&cap->lock);
	for (i = 0; i < nb_pkts; i++)
		rte_roce_pcap_write_mbuf(cap->pcap, pkts[i], ns);
	rte_spinlock_unlock(&cap->lock);
}

static uint16_t
capture_rx(uint16_t port_id __rte_unused, uint16_t queue __rte_unused, struct rte_mbuf **pkts,
	   uint16_t nb_pkts, uint16_t max_pkts __rte_unused, void *arg)
{
	capture_write(arg, pkts, nb_pkts);
	return nb_pkts;
}

static uint16_t
capture_tx(uint16_t port_id __rte_unused, uint16_t queue __rte_unused, struct rte_mbuf **pkts,
	   uint16_t nb_pkts, void *arg)
{
	capture_write(arg, pkts, nb_pkts);
	return nb_pkts;
}

/* Remove the callbacks added so far and free them (nobody runs them: see the API). */
static void
capture_detach(struct rte_roce_port *port, struct roce_capture *cap)
{
	uint16_t q;

	for (q = 0; q < cap->nb_rxq; q++) {
		if (cap->rx_cb[q] == NULL)
			continue;
		rte_eth_remove_rx_callback(port->port_id, q, cap->rx_cb[q]);
		rte_free((void *)(uintptr_t)cap->rx_cb[q]);
	}
	for (q = 0; q < cap->nb_txq; q++) {
		if (cap->tx_cb[q] == NULL)
			continue;
		rte_eth_remove_tx_callback(port->port_id, q, cap->tx_cb[q]);
		rte_free((void *)(uintptr_t)cap->tx_cb[q]);
	}
}

static int
capture_attach(struct rte_roce_port *port, struct roce_capture *cap)
{
	struct rte_eth_dev_info info;
	uint16_t q;
	int ret;

	ret = rte_eth_dev_info_get(port->port_id, &info);
	if (ret != 0)
		return ret;
	cap->nb_rxq = info.nb_rx_queues;
	cap->nb_txq = info.nb_tx_queues;
	for (q = 0; q < cap->nb_rxq; q++) {
		cap->rx_cb[q] = rte_eth_add_rx_callback(port->port_id, q, capture_rx, cap);
		if (cap->rx_cb[q] == NULL)
			return -ENOTSUP;
	}
	for (q = 0; q < cap->nb_txq; q++) {
		cap->tx_cb[q] = rte_eth_add_tx_callback(port->port_id, q, capture_tx, cap);
		if (cap->tx_cb[q] == NULL)
			return -ENOTSUP;
	}
	return 0;
}

int
rte_roce_port_capture_start(struct rte_roce_port *port, const char *path)
{
	struct roce_capture *cap;
	int ret;

	if (port == NULL || path == NULL) {
		ROCE_PORT_LOG(ERR, "NULL argument");
		return -EINVAL;
	}
	if (port->capture != NULL) {
		ROCE_PORT_LOG(ERR, "port %u: already capturing", port->port_id);
		return -EBUSY;
	}
	cap = rte_zmalloc("roce_capture", sizeof(*cap), 0);
	if (cap == NULL)
		return -ENOMEM;
	rte_spinlock_init(&cap->lock);
	cap->pcap = rte_roce_pcap_create(path);
	if (cap->pcap == NULL) {
		ret = -rte_errno;
		ROCE_PORT_LOG(ERR, "port %u: cannot create %s: %s", port->port_id, path,
			      rte_strerror(rte_errno));
		rte_free(cap);
		return ret;
	}
	ret = capture_attach(port, cap);
	if (ret != 0) {
		ROCE_PORT_LOG(ERR, "port %u: no ethdev callback for the capture: %s", port->port_id,
			      rte_strerror(-ret));
		capture_detach(port, cap);
		rte_roce_pcap_close(cap->pcap);
		rte_free(cap);
		return ret;
	}
	port->capture = cap;
	return 0;
}

int
rte_roce_port_capture_stop(struct rte_roce_port *port)
{
	struct roce_capture *cap;
	int ret;

	if (port == NULL) {
		ROCE_PORT_LOG(ERR, "NULL port");
		return -EINVAL;
	}
	cap = port->capture;
	if (cap == NULL) {
		ROCE_PORT_LOG(ERR, "port %u: not capturing", port->port_id);
		return -ENOENT;
	}
	capture_detach(port, cap);
	port->capture = NULL;
	ret = rte_roce_pcap_close(cap->pcap);
	if (ret != 0)
		ROCE_PORT_LOG(ERR, "port %u: capture file: %s", port->port_id, rte_strerror(-ret));
	rte_free(cap);
	return ret;
}
