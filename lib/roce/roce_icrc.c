/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * RoCEv2 ICRC (IBA A17.3.3; the same rule as Linux rxe_icrc.c).
 *
 * CRC-32 over an LRH stand-in (eight 0xFF bytes), the IP, UDP and BTH
 * headers with their variant fields set to all-ones, and the rest of the
 * packet. The packet itself is never written and never linearised.
 *
 * Two ways to get there for a packet we only read, with equal results:
 *
 * - generic: chain ISA-L's crc32_gzip_refl over a masked copy of the headers
 *   then over the rest in place, segment by segment. The short header call
 *   must finish before the long one starts; its fixed cost (about 20 ns
 *   here) made the ICRC of 4 KiB 1.2-1.3 times a raw CRC of the same bytes.
 *
 * - fast (x86 with PCLMULQDQ): CRC the packet as it is, in place, with a
 *   single call (or one per segment), then correct for the masking. A CRC
 *   is affine, so for messages of equal length
 *	crc(masked) = crc(packet) ^ lin(masked ^ packet)
 *   where lin() is the CRC register of the difference from a zero register.
 *   The difference is non-zero only in the variant bits, a few 32-bit words
 *   near the start; a word W starting e bytes before the end of the data
 *   contributes W * x^(8e) mod P (the register after W is W * x^32, each
 *   later byte multiplies by x^8). With x^(8e) from a table that is one
 *   carry-less multiplication per word and one reduction, none of them
 *   waiting for the long CRC.
 *
 * A packet the caller may write (a frame being built, or a received frame
 * in one segment that only the caller holds) needs neither: its variant
 * words are set to ones in place, CRC'd once and put back
 * (roce_icrc_calc_writable(): ~55 instructions less per 64 B WRITE frame
 * than the correction, under callgrind).
 *
 * Polynomials are in the reflected form of the CRC itself: bit 31 of a
 * uint32_t holds the coefficient of x^0, bit 0 that of x^31.
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <isa-l/crc.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#ifdef RTE_ARCH_X86_64
#include <rte_cpuflags.h>
#include <wmmintrin.h>
#endif

#include "rte_roce_hdr.h"
#include "rte_roce_icrc.h"
#include "roce_icrc.h"

/*
 * crc32_gzip_refl(0, ff, 8) for ff = eight 0xFF bytes (zlib crc32() of
 * them): the finalised CRC of the LRH stand-in, used as the seed of every
 * ICRC. Equal to ~0xDEBB20E3, rxe's unfinalised register for the same bytes
 * (rxe_icrc.c); the known-answer unit tests depend on it.
 */
#define ROCE_ICRC_LRH_SEED 0x2144DF1Cu

/* CRC-32 (IEEE 802.3) polynomial, reflected. */
#define ROCE_ICRC_POLY 0xEDB88320u
/* The polynomials 1 and x^8, reflected. */
#define ROCE_ICRC_ONE 0x80000000u
#define ROCE_ICRC_X8 (ROCE_ICRC_ONE >> 8)
#define ROCE_ICRC_BITS_PER_BYTE 8
#define ROCE_ICRC_WORD_LEN 4u

#define ROCE_ICRC_IP_VERSION_SHIFT 4
#define ROCE_ICRC_IPV4 4
#define ROCE_ICRC_IPV6 6
#define ROCE_ICRC_IPV4_MAX_HDR_LEN (RTE_IPV4_HDR_IHL_MASK * RTE_IPV4_IHL_MULTIPLIER)

/* BTH byte 4, the top of the DestQP word, holds FECN, BECN and resv6: all variant. */
#define ROCE_ICRC_BTH_VARIANT_OFF offsetof(struct rte_roce_bth, qpn)

/* Longest masked copy: IPv4 with the largest IHL, UDP, BTH. */
#define ROCE_ICRC_HDR_MAX \
	(ROCE_ICRC_IPV4_MAX_HDR_LEN + RTE_ROCE_UDP_LEN + RTE_ROCE_BTH_LEN)

/* What the calc functions return for input they cannot interpret. */
#define ROCE_ICRC_MALFORMED 0u

/*
 * Longest packet of the fast path, for its table of x^(8n) mod P (32 KiB,
 * of which a packet touches a few cache lines). RoCEv2 packets carry
 * at most 4096 bytes of payload (the largest IB MTU) and stay well below;
 * longer ones take the generic path.
 */
#define ROCE_ICRC_FAST_MAX 8192u

/*
 * At most this many 32-bit words of a header hold variant bits (four for
 * both IP versions). The loops over them run to this constant, so that
 * they unroll: the entries past nb_words have no bit set, and masking or
 * correcting for none changes nothing.
 */
#define ROCE_ICRC_FAST_WORDS 4
#define ICRC_UNROLL_WORDS _Pragma(RTE_STR(GCC unroll ROCE_ICRC_FAST_WORDS))

/* Where the variant bits of one IP version are, for the fast path. */
struct icrc_variant_words {
	uint32_t nb_words;
	uint32_t off[ROCE_ICRC_FAST_WORDS];	/* word offsets from l3 */
	uint32_t bits[ROCE_ICRC_FAST_WORDS];	/* variant bits, little-endian word */
};

static bool icrc_fast;
static struct icrc_variant_words icrc_words_ipv4, icrc_words_ipv6;
/* icrc_fold[k][b]: b << 8k times x^32 mod P, for icrc_reduce(). */
static uint32_t icrc_fold[ROCE_ICRC_WORD_LEN][UINT8_MAX + 1];
static uint32_t icrc_xpow[ROCE_ICRC_FAST_MAX + 1];	/* x^(8n) mod P */

/*
 * Length of the IP + UDP + BTH headers given the first byte of the IP
 * header, or 0 if it is not a usable IPv4/IPv6 header.
 */
static uint32_t
icrc_hdr_len(uint8_t version_ihl)
{
	uint32_t ihl = version_ihl & RTE_IPV4_HDR_IHL_MASK;
	uint32_t ip_len;

	switch (version_ihl >> ROCE_ICRC_IP_VERSION_SHIFT) {
	case ROCE_ICRC_IPV4:
		if (ihl < RTE_IPV4_MIN_IHL)
			return 0;
		ip_len = ihl * RTE_IPV4_IHL_MULTIPLIER;
		break;
	case ROCE_ICRC_IPV6:
		ip_len = RTE_ROCE_IPV6_LEN;
		break;
	default:
		return 0;
	}
	return ip_len + RTE_ROCE_UDP_LEN + RTE_ROCE_BTH_LEN;
}

/* Set the variant fields of a header copy to all-ones (IBA A17.3.3). */
static void
icrc_mask(uint8_t *hdr, uint32_t hdr_len)
{
	uint32_t ip_len = hdr_len - RTE_ROCE_UDP_LEN - RTE_ROCE_BTH_LEN;
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(hdr + ip_len);

	if (hdr[0] >> ROCE_ICRC_IP_VERSION_SHIFT == ROCE_ICRC_IPV4) {
		struct rte_ipv4_hdr *ip4 = (struct rte_ipv4_hdr *)hdr;

		ip4->type_of_service = UINT8_MAX;
		ip4->time_to_live = UINT8_MAX;
		ip4->hdr_checksum = UINT16_MAX;
	} else {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)hdr;

		ip6->vtc_flow |= rte_cpu_to_be_32(RTE_IPV6_HDR_TC_MASK |
						  RTE_IPV6_HDR_FL_MASK);
		ip6->hop_limits = UINT8_MAX;
	}
	udp->dgram_cksum = UINT16_MAX;
	hdr[ip_len + RTE_ROCE_UDP_LEN + ROCE_ICRC_BTH_VARIANT_OFF] = UINT8_MAX;
}

/* CRC of the LRH stand-in and a masked copy of the headers. */
static uint32_t
icrc_hdr_crc(const uint8_t *hdr, uint32_t hdr_len)
{
	uint8_t copy[ROCE_ICRC_HDR_MAX];

	memcpy(copy, hdr, hdr_len);
	icrc_mask(copy, hdr_len);
	return crc32_gzip_refl(ROCE_ICRC_LRH_SEED, copy, hdr_len);
}

/* Where the variant bits of this header are, or NULL (IPv4 options: positions vary). */
static const struct icrc_variant_words *
icrc_words(uint8_t version_ihl)
{
	if (version_ihl == RTE_IPV4_VHL_DEF)
		return &icrc_words_ipv4;
	if (version_ihl >> ROCE_ICRC_IP_VERSION_SHIFT == ROCE_ICRC_IPV6)
		return &icrc_words_ipv6;
	return NULL;
}

/* The variant-bit layout the fast path handles for this header, or NULL. */
static const struct icrc_variant_words *
icrc_fast_words(uint8_t version_ihl, uint32_t len)
{
	if (!icrc_fast || len > ROCE_ICRC_FAST_MAX)
		return NULL;
	return icrc_words(version_ihl);
}

/* a * x mod P, once per bit: the CRC register shifting in a zero bit. */
static uint32_t
icrc_mulx(uint32_t a)
{
	return (a >> 1) ^ (a & 1 ? ROCE_ICRC_POLY : 0);
}

/* a * b mod P, bit by bit: for the tables only. */
static uint32_t
icrc_mul_slow(uint32_t a, uint32_t b)
{
	uint32_t p = 0, bit;

	for (bit = ROCE_ICRC_ONE; bit != 0; bit >>= 1) {
		if (a & bit)
			p ^= b;
		b = icrc_mulx(b);
	}
	return p;
}

#ifdef RTE_ARCH_X86_64
/*
 * Reduce the carry-less product of two reflected 32-bit polynomials (or an
 * XOR of such products) mod P. The product, of degree <= 62, sits one bit
 * low: shifted left, its upper half holds x^0..x^31 and its lower half
 * x^32..x^63, which four zero bytes of CRC register bring back below x^32
 * (one table per byte, looked up in parallel).
 */
static uint32_t
icrc_reduce(uint64_t prod)
{
	uint32_t hi = (uint32_t)(prod >> (32 - 1));
	uint32_t lo = (uint32_t)(prod << 1);

	return hi ^ icrc_fold[0][lo & UINT8_MAX] ^ icrc_fold[1][(lo >> 8) & UINT8_MAX] ^
		icrc_fold[2][(lo >> 16) & UINT8_MAX] ^ icrc_fold[3][lo >> 24];
}

static __attribute__((target("pclmul"))) uint64_t
icrc_clmul(uint32_t a, uint32_t b)
{
	__m128i p = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)a),
					 _mm_cvtsi32_si128((int)b), 0);

	return (uint64_t)_mm_cvtsi128_si64(p);
}

/*
 * lin(masked ^ packet) for a packet of len bytes from l3 whose headers
 * are at hdr (see the top of the file).
 */
static __attribute__((target("pclmul"))) uint32_t
icrc_fix(const uint8_t *hdr, const struct icrc_variant_words *w, uint32_t len)
{
	uint64_t diff = 0;
	uint32_t word, i;

	/* Variant bits become ones: the difference is their complement. */
	for (i = 0; i < ROCE_ICRC_FAST_WORDS; i++) {
		memcpy(&word, hdr + w->off[i], sizeof(word));
		word = ~rte_le_to_cpu_32(word) & w->bits[i];
		diff ^= icrc_clmul(word, icrc_xpow[len - w->off[i]]);
	}
	return icrc_reduce(diff);
}
#else
static uint32_t
icrc_fix(const uint8_t *hdr, const struct icrc_variant_words *w, uint32_t len)
{
	RTE_SET_USED(hdr);
	RTE_SET_USED(w);
	RTE_SET_USED(len);
	return 0;	/* never called: icrc_fast stays false */
}
#endif

/* Derive a fast-path layout from icrc_mask(), the one statement of the rule. */
static void
icrc_init_words(struct icrc_variant_words *w, uint8_t version_ihl)
{
	uint8_t hdr[ROCE_ICRC_HDR_MAX] = { version_ihl };
	uint32_t hdr_len = icrc_hdr_len(version_ihl), off, bits;

	icrc_mask(hdr, hdr_len);
	hdr[0] ^= version_ihl;
	/* Both header lengths are whole words: no variant bit is left out. */
	for (off = 0; off + ROCE_ICRC_WORD_LEN <= hdr_len; off += ROCE_ICRC_WORD_LEN) {
		memcpy(&bits, hdr + off, sizeof(bits));
		if (bits == 0)
			continue;
		RTE_VERIFY(w->nb_words < ROCE_ICRC_FAST_WORDS);
		w->off[w->nb_words] = off;
		w->bits[w->nb_words++] = rte_le_to_cpu_32(bits);
	}
}

RTE_INIT(roce_icrc_init)
{
	uint32_t i, k;

	icrc_xpow[0] = ROCE_ICRC_ONE;
	for (i = 1; i <= ROCE_ICRC_FAST_MAX; i++)
		icrc_xpow[i] = icrc_mul_slow(icrc_xpow[i - 1], ROCE_ICRC_X8);
	for (k = 0; k < ROCE_ICRC_WORD_LEN; k++)
		for (i = 0; i <= UINT8_MAX; i++)
			icrc_fold[k][i] = icrc_mul_slow(i << (ROCE_ICRC_BITS_PER_BYTE * k),
							icrc_xpow[ROCE_ICRC_WORD_LEN]);
	icrc_init_words(&icrc_words_ipv4, RTE_IPV4_VHL_DEF);
	icrc_init_words(&icrc_words_ipv6, ROCE_ICRC_IPV6 << ROCE_ICRC_IP_VERSION_SHIFT);
#ifdef RTE_ARCH_X86_64
	icrc_fast = rte_cpu_get_flag_enabled(RTE_CPUFLAG_PCLMULQDQ) > 0;
#endif
}

/* The ICRC of a flat packet; -EBADMSG if the headers are unusable. */
static int
icrc_calc(const uint8_t *l3, uint32_t len, uint32_t *icrc)
{
	const struct icrc_variant_words *w;
	uint32_t hdr_len;

	hdr_len = len == 0 ? 0 : icrc_hdr_len(l3[0]);
	if (hdr_len == 0 || len < hdr_len)
		return -EBADMSG;
	w = icrc_fast_words(l3[0], len);
	if (w != NULL) {
		/* The correction first: it then runs while the long CRC does. */
		uint32_t fix = icrc_fix(l3, w, len);

		*icrc = crc32_gzip_refl(ROCE_ICRC_LRH_SEED, l3, len) ^ fix;
	} else {
		*icrc = crc32_gzip_refl(icrc_hdr_crc(l3, hdr_len), l3 + hdr_len, len - hdr_len);
	}
	return 0;
}

uint32_t
rte_roce_icrc_calc(const void *l3, uint32_t len)
{
	uint32_t icrc;

	if (icrc_calc(l3, len, &icrc) < 0)
		return ROCE_ICRC_MALFORMED;
	return icrc;
}

uint32_t
rte_roce_icrc_calc_rxe_flush(const void *l3, uint32_t len)
{
	const uint8_t *p = l3;
	uint32_t icrc, bth_off;

	if (icrc_calc(p, len, &icrc) < 0)
		return ROCE_ICRC_MALFORMED;
	/*
	 * rxe_icrc_check(): the headers, then payload_size() bytes from
	 * payload_addr(), which for an opcode without an RXE_PAYLOAD offset
	 * are the UDP payload's bytes up to the ICRC, from the BTH on.
	 */
	bth_off = icrc_hdr_len(p[0]) - RTE_ROCE_BTH_LEN;
	return crc32_gzip_refl(icrc, p + bth_off, len - bth_off);
}

uint32_t
roce_icrc_calc_writable(uint8_t *l3, uint32_t len)
{
	const struct icrc_variant_words *w = len == 0 ? NULL : icrc_words(l3[0]);
	uint32_t saved[ROCE_ICRC_FAST_WORDS], word, crc, i;

	if (w == NULL || len < icrc_hdr_len(l3[0]))
		return rte_roce_icrc_calc(l3, len);
	/* Unrolled (-O2 does not unroll): the saved words stay in registers. */
	ICRC_UNROLL_WORDS
	for (i = 0; i < ROCE_ICRC_FAST_WORDS; i++) {
		memcpy(&saved[i], l3 + w->off[i], sizeof(saved[i]));
		word = saved[i] | rte_cpu_to_le_32(w->bits[i]);
		memcpy(l3 + w->off[i], &word, sizeof(word));
	}
	crc = crc32_gzip_refl(ROCE_ICRC_LRH_SEED, l3, len);
	ICRC_UNROLL_WORDS
	for (i = 0; i < ROCE_ICRC_FAST_WORDS; i++)
		memcpy(l3 + w->off[i], &saved[i], sizeof(saved[i]));
	return crc;
}

int
roce_icrc_check_writable(uint8_t *l3, uint32_t len)
{
	uint32_t stored;

	if (len == 0 || icrc_words(l3[0]) == NULL || len < icrc_hdr_len(l3[0]))
		return rte_roce_icrc_check(l3, len);
	memcpy(&stored, l3 + len, sizeof(stored));
	return rte_le_to_cpu_32(stored) == roce_icrc_calc_writable(l3, len) ? 0 : -EBADMSG;
}

/* Chain crc over len bytes from off in place; -EBADMSG if the chain is short. */
static int
icrc_chain_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint32_t *crc)
{
	uint32_t n;

	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	for (; len > 0 && m != NULL; m = m->next, off = 0) {
		n = RTE_MIN((uint32_t)m->data_len - off, len);
		*crc = crc32_gzip_refl(*crc, rte_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		len -= n;
	}
	/* A chain whose segments hold fewer bytes than pkt_len claims. */
	return len > 0 ? -EBADMSG : 0;
}

/* The ICRC of a packet in an mbuf chain; -EBADMSG if unusable or too short. */
static int
icrc_calc_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t len,
	       uint32_t *icrc)
{
	const struct icrc_variant_words *w;
	uint8_t buf[ROCE_ICRC_HDR_MAX];
	uint32_t hdr_len, crc;
	const uint8_t *hdr;

	if (len == 0 || (uint64_t)l3_off + len > m->pkt_len)
		return -EBADMSG;
	hdr = rte_pktmbuf_read(m, l3_off, 1, buf);
	hdr_len = hdr == NULL ? 0 : icrc_hdr_len(hdr[0]);
	if (hdr_len == 0 || len < hdr_len)
		return -EBADMSG;
	hdr = rte_pktmbuf_read(m, l3_off, hdr_len, buf);
	if (hdr == NULL)
		return -EBADMSG;
	w = icrc_fast_words(hdr[0], len);
	if (w != NULL) {
		uint32_t fix = icrc_fix(hdr, w, len);

		crc = ROCE_ICRC_LRH_SEED;
		if (icrc_chain_mbuf(m, l3_off, len, &crc) < 0)
			return -EBADMSG;
		*icrc = crc ^ fix;
		return 0;
	}
	crc = icrc_hdr_crc(hdr, hdr_len);
	if (icrc_chain_mbuf(m, l3_off + hdr_len, len - hdr_len, &crc) < 0)
		return -EBADMSG;
	*icrc = crc;
	return 0;
}

uint32_t
rte_roce_icrc_calc_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t len)
{
	uint32_t icrc;

	if (icrc_calc_mbuf(m, l3_off, len, &icrc) < 0)
		return ROCE_ICRC_MALFORMED;
	return icrc;
}

int
rte_roce_icrc_check(const void *l3, uint32_t len)
{
	const uint8_t *p = l3;
	uint32_t stored, icrc;

	/* Malformed input fails whatever it stores, even ROCE_ICRC_MALFORMED. */
	if (icrc_calc(p, len, &icrc) < 0)
		return -EBADMSG;
	memcpy(&stored, p + len, sizeof(stored));
	return rte_le_to_cpu_32(stored) == icrc ? 0 : -EBADMSG;
}

int
rte_roce_icrc_check_mbuf(const struct rte_mbuf *m, uint32_t l3_off, uint32_t len)
{
	uint32_t buf, stored, icrc;
	const void *p;

	if ((uint64_t)l3_off + len + RTE_ROCE_ICRC_LEN > m->pkt_len)
		return -EBADMSG;
	/* All in the first segment (small packets): the flat check, without the chain walks. */
	if (l3_off + len + RTE_ROCE_ICRC_LEN <= m->data_len)
		return rte_roce_icrc_check(rte_pktmbuf_mtod_offset(m, const uint8_t *, l3_off), len);
	if (icrc_calc_mbuf(m, l3_off, len, &icrc) < 0)
		return -EBADMSG;
	p = rte_pktmbuf_read(m, l3_off + len, RTE_ROCE_ICRC_LEN, &buf);
	if (p == NULL)
		return -EBADMSG;
	memcpy(&stored, p, sizeof(stored));
	return rte_le_to_cpu_32(stored) == icrc ? 0 : -EBADMSG;
}
