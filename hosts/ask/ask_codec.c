/* SPDX-License-Identifier: BSD-3-Clause */
/* ASK payloads: build and parse (ask_host.h). Parsers treat their input as untrusted. */

#include <errno.h>
#include <string.h>

#include "ask_host.h"

bool ask_msg_has_incarnation(uint8_t type)
{
	switch (type) {
	case ASK_DATA:
	case ASK_DATA_ACK:
	case ASK_SWAP:
	case ASK_FETCH:
	case ASK_BEGIN:
	case ASK_BEGIN_DONE:
	case ASK_HELLO_ACK:
	case ASK_CLOSE:
	case ASK_CLOSE_ACK:
	case ASK_ABORT:
		return true;
	default:
		return false;
	}
}

void ask_msg_put(uint8_t *p, const struct ask_msg *m)
{
	struct ask_hdr *h = (struct ask_hdr *)p;

	h->type = m->type;
	h->flags = m->flags;
	ask_put16(h->task, m->task);
	ask_put16(h->channel, m->channel);
	h->nslots = m->nslots;
	h->key_bytes = m->key_bytes;
	ask_put32(h->seq, m->seq);
	ask_put32(h->bitmap, m->bitmap);
	ask_put32(h->start, m->start);
	ask_put32(h->count, ask_msg_has_incarnation(m->type)
	                            ? (uint32_t)m->incarnation << 16 | (m->count & 0xFFFFu)
	                            : m->count);
}

int ask_msg_get(const uint8_t *p, size_t len, struct ask_msg *m)
{
	const struct ask_hdr *h = (const struct ask_hdr *)p;

	if (len < ASK_HDR_LEN)
		return -EINVAL;
	m->type = h->type;
	m->flags = h->flags;
	m->task = ask_be16(h->task);
	m->channel = ask_be16(h->channel);
	m->nslots = h->nslots;
	m->key_bytes = h->key_bytes;
	m->seq = ask_be32(h->seq);
	m->bitmap = ask_be32(h->bitmap);
	m->start = ask_be32(h->start);
	m->count = ask_be32(h->count);
	m->incarnation = 0;
	if (ask_msg_has_incarnation(m->type)) {
		m->incarnation = (uint16_t)(m->count >> 16);
		m->count &= 0xFFFFu;
	}
	return 0;
}

size_t ask_data_init(uint8_t *p, const struct ask_msg *m)
{
	struct ask_msg h = *m;
	size_t len = ask_data_size(m->nslots, m->key_bytes);

	h.type = ASK_DATA;
	h.bitmap = 0;
	ask_msg_put(p, &h);
	memset(p + ASK_HDR_LEN, 0, len - ASK_HDR_LEN);
	return len;
}

void ask_data_put(uint8_t *p, unsigned key_bytes, unsigned j, const uint8_t *key, uint32_t value)
{
	uint8_t *slot = p + ASK_HDR_LEN + (size_t)j * ask_rec_len(key_bytes);
	struct ask_hdr *h = (struct ask_hdr *)p;

	memcpy(slot, key, key_bytes);
	ask_put32(slot + key_bytes, value);
	ask_put32(h->bitmap, ask_be32(h->bitmap) | 1u << j);
}

size_t ask_long_put(uint8_t *p, const uint8_t *key, unsigned klen, uint32_t value)
{
	ask_put16(p, (uint16_t)klen);
	memcpy(p + 2, key, klen);
	ask_put32(p + 2 + klen, value);
	return ask_long_rec_len(klen);
}

void ask_long_iter_init(struct ask_long_iter *it, const uint8_t *payload, size_t len)
{
	it->p = payload + ASK_HDR_LEN;
	it->end = payload + len;
}

int ask_long_next(struct ask_long_iter *it, const uint8_t **key, unsigned *klen, uint32_t *value)
{
	size_t left = (size_t)(it->end - it->p);
	unsigned n;

	if (left == 0)
		return 0;
	if (left < 2)
		return -EINVAL;
	n = ask_be16(it->p);
	if (n > ASK_KEY_MAX || left < ask_long_rec_len(n))
		return -EINVAL;
	*key = it->p + 2;
	*klen = n;
	*value = ask_be32(it->p + 2 + n);
	it->p += ask_long_rec_len(n);
	return 1;
}

/* The records of a LONG payload: all whole, exactly m->count of them. */
static int long_check(const uint8_t *p, size_t len, const struct ask_msg *m)
{
	struct ask_long_iter it;
	const uint8_t *key;
	unsigned klen;
	uint32_t value, n = 0;
	int rc;

	ask_long_iter_init(&it, p, len);
	while ((rc = ask_long_next(&it, &key, &klen, &value)) > 0)
		n++;
	return rc < 0 || n != m->count ? -EINVAL : 0;
}

int ask_data_parse(const uint8_t *p, size_t len, struct ask_msg *m)
{
	if (ask_msg_get(p, len, m) < 0 || m->type != ASK_DATA)
		return -EINVAL;
	if (m->nslots < 1 || m->nslots > ASK_SLOTS_MAX || !ask_key_bytes_ok(m->key_bytes))
		return -EINVAL;
	if (m->flags & ASK_F_LONG)
		return m->bitmap != 0 ? -EINVAL : long_check(p, len, m);
	if (len < ask_data_size(m->nslots, m->key_bytes))
		return -EINVAL;
	if (m->nslots < 32 && (m->bitmap >> m->nslots) != 0)
		return -EINVAL;
	return 0;
}

size_t ask_ack_build(uint8_t *p, const struct ask_msg *d)
{
	struct ask_msg a = {
	        .type = ASK_DATA_ACK,
	        .task = d->task,
	        .channel = d->channel,
	        .nslots = d->nslots,
	        .key_bytes = d->key_bytes,
	        .seq = d->seq,
	        .incarnation = d->incarnation,
	};

	ask_msg_put(p, &a);
	return ASK_HDR_LEN;
}

/* A header-only payload of type `type`. */
static int typed_parse(const uint8_t *p, size_t len, uint8_t type, struct ask_msg *m)
{
	if (ask_msg_get(p, len, m) < 0 || m->type != type)
		return -EINVAL;
	return 0;
}

int ask_ack_parse(const uint8_t *p, size_t len, struct ask_msg *m)
{
	return typed_parse(p, len, ASK_DATA_ACK, m);
}

size_t ask_fetch_build(uint8_t *p, uint16_t task, uint16_t incarnation, unsigned nslots,
                       unsigned key_bytes, uint32_t seq, unsigned slot, unsigned copy,
                       uint32_t start, uint32_t count)
{
	struct ask_msg m = {
	        .type = ASK_FETCH,
	        .task = task,
	        .incarnation = incarnation,
	        .nslots = (uint8_t)nslots,
	        .key_bytes = (uint8_t)key_bytes,
	        .seq = seq,
	        .bitmap = ASK_SEL(slot, copy),
	        .start = start,
	        .count = count,
	};

	ask_msg_put(p, &m);
	return ASK_HDR_LEN;
}

size_t ask_swap_build(uint8_t *p, uint16_t task, uint16_t incarnation, unsigned nslots,
                      unsigned key_bytes, uint32_t seq, unsigned slot, unsigned copy)
{
	size_t n = ask_fetch_build(p, task, incarnation, nslots, key_bytes, seq, slot, copy, 0, 0);

	p[0] = ASK_SWAP;
	return n;
}

int ask_swap_done_parse(const uint8_t *p, size_t len, struct ask_msg *m)
{
	return typed_parse(p, len, ASK_SWAP_DONE, m);
}

int ask_fetch_reply_parse(const uint8_t *p, size_t len, unsigned key_bytes, struct ask_msg *m)
{
	if (typed_parse(p, len, ASK_FETCH_REPLY, m) < 0 || !ask_key_bytes_ok(key_bytes))
		return -EINVAL;
	if (m->flags & ASK_F_ERROR)
		return 0; /* refused: the caller reads no record */
	if (m->count > ask_fetch_max(key_bytes))
		return -EINVAL;
	if (len - ASK_HDR_LEN < (size_t)m->count * ask_rec_len(key_bytes))
		return -EINVAL;
	return 0;
}
