/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ASK host library (docs/ask.md): the pure parts of ask-sender, ask-receiver and ask-count.
 *
 *  - codec: build and parse the UDP payloads (ASK header + slots, LONG records, ACK, SWAP,
 *    FETCH, their replies). Parsers take untrusted bytes and never read past `len`.
 *  - keys and table: key padding, the operators, the reduceByKey table and its text output.
 *  - tuple sources: words of text files, "key value" lines, a Zipf generator.
 *  - sender: per-subspace queues, packets, channels with a window of W, ACKs, retransmission.
 *  - receiver: ACK, de-duplication per (channel, seq), merge, SWAP and FETCH of the switch's
 *    aggregator arrays.
 *
 * Nothing here opens a socket or reads a clock: time is an argument (CLOCK_MONOTONIC ns in the
 * tools), packets to send come back as pointers, so the unit test drives every branch by hand.
 * int functions return 0 or -errno; constructors return NULL and set errno.
 */
#ifndef ISW_ASK_HOST_H
#define ISW_ASK_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ask/ask_proto.h"

#define ASK_KEY_MAX    1024u /* longest key a tuple may have (fits a LONG packet) */
#define ASK_LONG_BYTES 1400u /* record bytes of one LONG packet, like ASK_FETCH_BYTES */
/* Largest UDP payload the tools send or take: header + 1400 bytes (LONG, FETCH_REPLY) or S slots.
 */
#define ASK_MSG_MAX (ASK_HDR_LEN + ASK_FETCH_BYTES)

_Static_assert(ASK_HDR_LEN + ASK_SLOTS_MAX * (16u + ASK_VALUE_LEN) <= ASK_MSG_MAX,
               "the widest DATA packet fits a message buffer");

/* ---- codec ----------------------------------------------------------------------------- */

/* The header fields, in host order. */
struct ask_msg {
	uint8_t type, flags;
	uint16_t task, channel;
	uint8_t nslots, key_bytes;
	uint32_t seq, bitmap, start, count;
	/* The job's incarnation: count's high half on the wire in DATA, SWAP, FETCH, BEGIN (N) and
	 * BEGIN_DONE, DATA_ACK, HELLO_ACK, CLOSE, CLOSE_ACK and ABORT (ask_msg_has_incarnation) */
	uint16_t incarnation;
};

/* Whether messages of this type carry the incarnation in count's high half. */
bool ask_msg_has_incarnation(uint8_t type);

/* Writes the 24-byte header m at p. */
void ask_msg_put(uint8_t *p, const struct ask_msg *m);
/* Reads the header of a len-byte payload: -EINVAL if len < 24. */
int ask_msg_get(const uint8_t *p, size_t len, struct ask_msg *m);

/* UDP payload bytes of a DATA packet of S slots (header included). */
static inline size_t ask_data_size(unsigned nslots, unsigned key_bytes)
{
	return ASK_HDR_LEN + (size_t)nslots * ask_rec_len(key_bytes);
}

/* Starts a DATA packet: header m (its bitmap ignored, written 0) and S zeroed slots. Returns
 * the payload length. */
size_t ask_data_init(uint8_t *p, const struct ask_msg *m);
/* Puts (key of key_bytes, value) in slot j of a packet ask_data_init() started and sets bit j
 * of its bitmap. */
void ask_data_put(uint8_t *p, unsigned key_bytes, unsigned j, const uint8_t *key, uint32_t value);

/* Bytes of one LONG record: u16 length, key, u32 value. */
static inline size_t ask_long_rec_len(unsigned klen)
{
	return 2u + klen + ASK_VALUE_LEN;
}
/* Appends a LONG record at p (room for ask_long_rec_len(klen) bytes); returns its length. */
size_t ask_long_put(uint8_t *p, const uint8_t *key, unsigned klen, uint32_t value);

/*
 * Checks a received DATA payload (plain or LONG) completely: type, nslots 1..32, key width,
 * for a plain one the full S slots and no bitmap bit at or beyond S, for a LONG one records that
 * end exactly at len and number `count`. 0 and m filled, or -EINVAL. The slots and records
 * of an accepted packet can then be read without further checks.
 */
int ask_data_parse(const uint8_t *p, size_t len, struct ask_msg *m);

/* Walks the records of a LONG payload ask_data_parse() accepted. */
struct ask_long_iter {
	const uint8_t *p, *end;
};
void ask_long_iter_init(struct ask_long_iter *it, const uint8_t *payload, size_t len);
/* The next record: 1 (key points into the packet), 0 at the end, -EINVAL if truncated. */
int ask_long_next(struct ask_long_iter *it, const uint8_t **key, unsigned *klen, uint32_t *value);

/* DATA_ACK of DATA header d (task, channel, seq, nslots, key_bytes echoed). Returns 24. */
size_t ask_ack_build(uint8_t *p, const struct ask_msg *d);
/* Parses a DATA_ACK: 0 or -EINVAL. */
int ask_ack_parse(const uint8_t *p, size_t len, struct ask_msg *m);

/* SWAP: make `copy` of AA_slot active. Returns 24. */
size_t ask_swap_build(uint8_t *p, uint16_t task, uint16_t incarnation, unsigned nslots,
                      unsigned key_bytes, uint32_t seq, unsigned slot, unsigned copy);
/* FETCH: up to count records of copy `copy` of AA_slot from entry start on. Returns 24. */
size_t ask_fetch_build(uint8_t *p, uint16_t task, uint16_t incarnation, unsigned nslots,
                       unsigned key_bytes, uint32_t seq, unsigned slot, unsigned copy,
                       uint32_t start, uint32_t count);
/* Parses a SWAP_DONE: 0 or -EINVAL. */
int ask_swap_done_parse(const uint8_t *p, size_t len, struct ask_msg *m);
/*
 * Parses a FETCH_REPLY whose records are key_bytes + 4 bytes: -EINVAL unless it is one with
 * count <= ask_fetch_max(key_bytes) records all inside len (ERROR replies need carry none).
 */
int ask_fetch_reply_parse(const uint8_t *p, size_t len, unsigned key_bytes, struct ask_msg *m);

/* ---- keys, operators, the table ---------------------------------------------------------- */

enum ask_op {
	ASK_OP_ADD, /* wrapping at 32 bits */
	ASK_OP_MAX, /* signed 32-bit */
	ASK_OP_MIN,
};

/* "add", "max", "min" -> op: 0 or -EINVAL. */
int ask_op_parse(const char *s, enum ask_op *op);
const char *ask_op_name(enum ask_op op);

/* a combined with b under op. */
static inline uint32_t ask_op_apply(enum ask_op op, uint32_t a, uint32_t b)
{
	switch (op) {
	case ASK_OP_MAX:
		return (int32_t)b > (int32_t)a ? b : a;
	case ASK_OP_MIN:
		return (int32_t)b < (int32_t)a ? b : a;
	default:
		return a + b;
	}
}

/*
 * The key a table holds for a tuple key of len bytes: padded with zeros to key_bytes when
 * shorter (the bytes a DATA slot carries), as it is when longer (a LONG record). out has room
 * for ASK_KEY_MAX bytes; returns the canonical length.
 */
unsigned ask_key_canon(uint8_t *out, const uint8_t *key, unsigned len, unsigned key_bytes);

/* How ask_table_write() prints a key. */
enum ask_kfmt {
	ASK_KFMT_TEXT, /* the bytes, padding zeros stripped; control bytes, DEL and the backslash
	                * escaped (\xHH, \\), so that no two keys print alike */
	ASK_KFMT_U64,  /* the first 8 bytes as a big-endian number when the rest are zero, else hex
	                */
	ASK_KFMT_HEX,  /* two lower-case hex digits a byte */
};
/* "text", "u64", "hex" -> fmt: 0 or -EINVAL. */
int ask_kfmt_parse(const char *s, enum ask_kfmt *fmt);

/* reduceByKey: canonical key (1..ASK_KEY_MAX bytes) -> 32-bit value, combined with one operator. */
struct ask_table;

struct ask_table *ask_table_new(enum ask_op op);
void ask_table_free(struct ask_table *t);
/* Stores (key, value) or combines value into the key's entry. 0 or -ENOMEM. */
int ask_table_merge(struct ask_table *t, const uint8_t *key, unsigned len, uint32_t value);
/* The value of key: true and *value, or false if absent. */
bool ask_table_get(const struct ask_table *t, const uint8_t *key, unsigned len, uint32_t *value);
/* Number of keys. */
size_t ask_table_size(const struct ask_table *t);
/* Calls fn(key, len, value, arg) once for every key, in no particular order. */
void ask_table_foreach(const struct ask_table *t,
                       void (*fn)(const uint8_t *key, unsigned len, uint32_t value, void *arg),
                       void *arg);
/*
 * Writes one line a key, "key<TAB>value\n", value as a signed 32-bit decimal, sorted by the
 * key bytes (a key before any longer key it begins). key_bytes is the task's key width: in
 * text, a key of that width loses its padding zeros and a longer one (LONG) keeps every byte.
 * 0 or -errno.
 */
int ask_table_write(const struct ask_table *t, FILE *f, enum ask_kfmt fmt, unsigned key_bytes);

/* ---- tuple sources ----------------------------------------------------------------------- */

struct ask_tuple {
	unsigned len;
	uint32_t value;
	uint8_t key[ASK_KEY_MAX];
};

/* Zipf input: count tuples (key id as 8 big-endian bytes, value 1), ids 0..keys-1, id 0 the most
 * frequent, P(id) ~ 1/(id+1)^s; the same seed gives the same tuples. */
struct ask_zipf_spec {
	uint64_t keys, count, seed;
	double s;
};
/* "KEYS,S,COUNT,SEED" (numbers as host_parse_count() takes them, S a decimal >= 0). */
int ask_zipf_parse(const char *spec, struct ask_zipf_spec *z);

/* A list of inputs read one after the other. */
struct ask_src;

struct ask_src *ask_src_new(void);
void ask_src_free(struct ask_src *s);
/* Every word of a text (split on ASCII whitespace, bytes kept as they are) -> (word, 1). The
 * _fp forms take an open stream the source then owns and closes. 0 or -errno. */
int ask_src_add_words(struct ask_src *s, const char *path);
int ask_src_add_words_fp(struct ask_src *s, FILE *f, const char *name);
/* Lines "key value" (value a decimal in -2^31 .. 2^32-1; blank lines skipped). */
int ask_src_add_tuples(struct ask_src *s, const char *path);
int ask_src_add_tuples_fp(struct ask_src *s, FILE *f, const char *name);
int ask_src_add_zipf(struct ask_src *s, const struct ask_zipf_spec *z);
/* The next tuple: 1, 0 at the end of every input, or -errno (ask_src_error() says why:
 * a word or key longer than ASK_KEY_MAX, a bad line, a read error). */
int ask_src_next(struct ask_src *s, struct ask_tuple *t);
const char *ask_src_error(const struct ask_src *s);

/* ---- sender ------------------------------------------------------------------------------ */

struct ask_send_cfg {
	uint16_t task;
	uint16_t incarnation; /* the task's, as registered on the switch */
	uint16_t channel0;    /* channels channel0 .. channel0 + nchan - 1 */
	unsigned nchan;       /* 1.. */
	unsigned window;      /* packets in flight per channel, a power of two */
	unsigned nslots;      /* S, 1..32 */
	unsigned key_bytes;   /* 4, 8 or 16 */
	uint64_t rto_ns;      /* least retransmission timeout */
	unsigned retries;     /* resends of one packet before giving up */
	unsigned queue_limit; /* tuples held in the subspace queues; 0: 64 per slot */
};

struct ask_send_stats {
	uint64_t tuples, long_tuples;
	uint64_t packets; /* first transmissions: DATA, LONG and empty LAST */
	uint64_t long_packets, resends, acks, dup_acks, bad_acks;
};

/* One packet to send: its bytes stay valid until the next ask_sender_pump(). */
struct ask_tx {
	const uint8_t *buf;
	size_t len;
	unsigned to; /* a receiver's SWAP, FETCH or BEGIN: the switch it is for (0: the receiver's
	              * own, k: edge switch k); 0 otherwise */
};

struct ask_sender;

/* Checks cfg (-EINVAL, errno) and takes the source (freed with the sender); on failure (NULL)
 * the source stays the caller's. */
struct ask_sender *ask_sender_new(const struct ask_send_cfg *cfg, struct ask_src *src);
void ask_sender_free(struct ask_sender *s);
/*
 * Fills tx with up to max packets due at time now (ns): first the resends (RESEND flag set,
 * otherwise the same bytes) of packets presumed lost (a packet of the channel sent later was
 * acknowledged, an RTT and a reorder margin ago) or timed out, then new packets while a channel
 * has room in its window. Returns the count, or -ETIMEDOUT (a packet went unacknowledged after
 * cfg.retries resends) or a source error; ask_sender_error() says which.
 */
int ask_sender_pump(struct ask_sender *s, uint64_t now, struct ask_tx *tx, unsigned max);
/* Takes a received payload: a DATA_ACK of this task and one of its channels acknowledges a seq
 * in flight; anything else is counted (bad_acks, dup_acks) and ignored. */
void ask_sender_ack(struct ask_sender *s, const uint8_t *p, size_t len, uint64_t now);
/* Every channel sent its LAST packet and every packet is acknowledged. */
bool ask_sender_done(const struct ask_sender *s);
/* What channel channel0 + k carried so far (packets: the seqs it used). */
const struct ask_totals *ask_sender_totals(const struct ask_sender *s, unsigned k);
/* The time ask_sender_pump() next has a retransmission to look at (UINT64_MAX: none). */
uint64_t ask_sender_wake(const struct ask_sender *s);
const struct ask_send_stats *ask_sender_stats(const struct ask_sender *s);
const char *ask_sender_error(const struct ask_sender *s);

/* ---- receiver ---------------------------------------------------------------------------- */

/* Switches on the senders' side of a path, besides the receiver's (docs/fabric.md, ASK across
 * two switches): each absorbs what it can, the receiver drains them all. */
#define ASK_EDGES_MAX 15

/* "the switch" (k 0 without edges), "the receiver's switch" (k 0), "edge switch k". */
void ask_switch_name(unsigned k, unsigned edges, char *buf, size_t len);

struct ask_recv_cfg {
	uint16_t task;
	uint16_t incarnation;    /* the task's: DATA of another one is not ours */
	unsigned nchan;          /* channels 0..nchan-1 */
	unsigned window;         /* W, a power of two */
	unsigned nslots;         /* S */
	unsigned key_bytes;      /* 4, 8, 16 */
	uint32_t aa_size;        /* entries of one AA copy, a power of two */
	enum ask_op op;          /* also the table's operator */
	bool ctl;                /* a switch to SWAP and FETCH from (false: neither) */
	unsigned edges;          /* with ctl: switches on the senders' side besides the
	                          * receiver's own, 0..ASK_EDGES_MAX (docs/fabric.md) */
	uint64_t swap_threshold; /* swap a subspace after this many un-absorbed tuples; 0: never */
	uint64_t rto_ns;         /* SWAP / FETCH retry timeout */
	unsigned retries;        /* retries of one SWAP / FETCH before giving up */
	uint32_t seq0; /* first SWAP / FETCH seq (differ between runs: the switch replays); edge
	                * switch k's from seq0 + k * 2^24 */
};

struct ask_recv_stats {
	uint64_t data_pkts, dup_pkts, bad_pkts, long_records, tuples_unabsorbed;
	uint64_t swaps, swap_retries, fetches, fetch_retries, fetched_records, stale_replies;
};

/* What ask_receiver_input() made of a payload. */
enum ask_rx {
	ASK_RX_BAD,   /* not for this task or malformed: counted in bad_pkts, no ACK */
	ASK_RX_NEW,   /* DATA seen for the first time: merged; ACK built */
	ASK_RX_DUP,   /* DATA seen before: ACK built, nothing merged */
	ASK_RX_REPLY, /* a SWAP_DONE / FETCH_REPLY taken (or a stale one ignored) */
};

struct ask_receiver;

/* Checks cfg (-EINVAL, errno). */
struct ask_receiver *ask_receiver_new(const struct ask_recv_cfg *cfg);
void ask_receiver_free(struct ask_receiver *r);
/*
 * Takes one received payload. For DATA of the task (first copy or not) writes the DATA_ACK to
 * ack (24 bytes) for the caller to send to the packet's source. Returns an enum ask_rx, or
 * -errno on a hard error: -ENOMEM, -EPROTO (a reply with the ERROR flag or a FETCH_REPLY going
 * past aa_size; ask_receiver_error() says which).
 */
int ask_receiver_input(struct ask_receiver *r, const uint8_t *p, size_t len, uint8_t *ack);
/*
 * The SWAP or FETCH to send to the switch now, if any: 1 and *tx, 0 if nothing is due, or
 * -ETIMEDOUT after cfg.retries unanswered retries. Call after every batch of input.
 */
int ask_receiver_ctl(struct ask_receiver *r, uint64_t now, struct ask_tx *tx);
/* Every channel delivered LAST and every seq before it. */
bool ask_receiver_complete(const struct ask_receiver *r);
/* Channel ch delivered LAST and every seq before it: true and its seqs (LAST + 1) in *packets. */
bool ask_receiver_channel_done(const struct ask_receiver *r, unsigned ch, uint32_t *packets);
/* The LONG records channel ch delivered. */
uint64_t ask_receiver_channel_long(const struct ask_receiver *r, unsigned ch);
/* Complete and, with a switch, both copies of every AA drained into the table. */
bool ask_receiver_done(const struct ask_receiver *r);
/* When ask_receiver_ctl() next has a retry to send (UINT64_MAX: none pending). */
uint64_t ask_receiver_wake(const struct ask_receiver *r);
const struct ask_recv_stats *ask_receiver_stats(const struct ask_receiver *r);
struct ask_table *ask_receiver_table(struct ask_receiver *r);
const char *ask_receiver_error(const struct ask_receiver *r);

/* ---- jobs: the incarnation, the senders' totals, the end-to-end check ------------------- */

/*
 * What a sender sent on one channel (CLOSE carries it), or what a receiver's table adds up to:
 * order-independent, so the merged table can be checked against the senders' sums.
 */
struct ask_totals {
	uint64_t tuples;        /* every tuple, slots and LONG records */
	uint64_t long_tuples;   /* of them, in LONG records (they bypass the switch) */
	uint32_t packets;       /* seqs of the channel: its LAST + 1 */
	uint32_t sum, ck1, ck2; /* the values, and the values weighted by two hashes of the key
	                         * (mod 2^32): what add, wrapping at 32 bits, preserves */
	int32_t vmax, vmin;     /* the largest and smallest value, signed (max and min keep them) */
};

void ask_totals_init(struct ask_totals *t);
/* One tuple of a canonical key (ask_key_canon) of len bytes. */
void ask_totals_tuple(struct ask_totals *t, const uint8_t *key, unsigned len, uint32_t value,
                      bool is_long);
/* into += t (packets too). */
void ask_totals_add(struct ask_totals *into, const struct ask_totals *t);
/* The totals of a table: one tuple per key (tuples = keys). */
void ask_table_totals(const struct ask_table *tab, struct ask_totals *t);

#define ASK_CLOSE_LEN (ASK_HDR_LEN + 40u) /* CLOSE: header and the channel's ask_totals */
#define ASK_TEXT_MAX  256u                /* ABORT's text, NUL included */

/* HELLO_ACK's answer (count's low half) */
enum ask_hello_error {
	ASK_HELLO_OK = 0,
	ASK_HELLO_SHAPE = 1,    /* the sender's window, slots or key width is not the task's */
	ASK_HELLO_CHANNELS = 2, /* a channel beyond the task's */
	ASK_HELLO_TAKEN = 3,    /* a channel another sender of this job has */
	ASK_HELLO_JOB = 4,      /* the sender belongs to another run (its job token) */
};

#define ASK_HELLO_LEN (ASK_HDR_LEN + 8u) /* HELLO: header, the sender's window, its job token */

/* ABORT's reason (count's low half); the text says more */
enum ask_abort_reason {
	ASK_ABORT_FAILED = 1,     /* the job failed (the text says how) */
	ASK_ABORT_STATE_LOST = 2, /* the switch lost the task's state: restarted, or the task was
	                           * registered again, or another job took it over */
	ASK_ABORT_CHECK = 3,      /* the end-to-end check failed */
};

/* ABORT of job (task, incarnation) with reason and text (cut to fit). Returns the length. */
size_t ask_abort_build(uint8_t *p, uint16_t task, uint16_t incarnation, uint16_t reason,
                       const char *text);
/* An ABORT: 0, *reason and the text (NUL-terminated, ASK_TEXT_MAX bytes), or -EINVAL. */
int ask_abort_parse(const uint8_t *p, size_t len, struct ask_msg *m, uint16_t *reason, char *text);

/* The switch's counts of the current incarnation (BEGIN_DONE, struct ask_job_info). */
struct ask_switch_counts {
	uint64_t tuples, absorbed;
	int64_t held;
};

/*
 * The end-to-end check of a job (docs/ask.md, Job lifetime): want = every channel's CLOSE summed,
 * table and st the receiver's, sw[0..nsw-1] the switches' counts at the end (nsw 0: no switch;
 * sw[0] the receiver's, sw[1..] the edges, docs/fabric.md). True if every check holds; else
 * false and why (a sentence).
 */
bool ask_job_check(enum ask_op op, const struct ask_totals *want, const struct ask_table *table,
                   const struct ask_recv_stats *st, const struct ask_switch_counts *sw,
                   unsigned nsw, char *why, size_t len);

/*
 * The receiver's side of a job: with a switch, BEGIN a new incarnation of the task (asking the
 * switch for the current one first, so the new one differs), check the task's shape, and probe
 * it every probe_ns: a probe that finds another incarnation or registration means the switch
 * lost the job's state; none answered for silence_ns (and 8 probes at least) means the switch
 * is gone. A BEGIN is retried for as long as the caller waits (its own timeout). Answer HELLO
 * (the incarnation, once begun; each channel to one sender) and CLOSE (the channel's totals,
 * checked against the channel as received), and at the end ask the switch for its final
 * counts.
 */
struct ask_rjob_cfg {
	uint16_t incarnation; /* the one to start (nonzero); another if the switch has it */
	uint32_t job;         /* the run's token: HELLO with another is refused (0: any) */
	uint64_t probe_ns, silence_ns;
};

/* What ask_rjob_input() made of a payload. */
enum ask_jrx {
	ASK_JRX_OTHER, /* not a job message: the caller's to handle */
	ASK_JRX_TAKEN, /* a job message taken (or a stale one ignored) */
	ASK_JRX_REPLY, /* taken, and a reply to send back to its source is in out */
};

struct ask_rjob;

/* rc is the receiver's configuration (the task, its shape; ctl: a switch, else begun at once;
 * rto_ns the BEGIN retry timeout; BEGIN's seq is seq0 - 1); its incarnation is not looked at. */
struct ask_rjob *ask_rjob_new(const struct ask_recv_cfg *rc, const struct ask_rjob_cfg *cfg);
void ask_rjob_free(struct ask_rjob *j);
/* The BEGIN or probe to send to the switch now: 1 and *tx, 0, or -errno: -ETIMEDOUT (no answer),
 * -ESTALE (the switch lost the job's state), -EPROTO (refused, or another shape). */
int ask_rjob_ctl(struct ask_rjob *j, uint64_t now, struct ask_tx *tx);
/*
 * Takes a payload: BEGIN_DONE (from the switch), HELLO, CLOSE or ABORT (from a sender; *chan is
 * then the first channel it is about, to record its source). r (NULL before the receiver
 * exists) checks a CLOSE against its channel. Returns an enum ask_jrx, with a reply in out
 * (ASK_MSG_MAX bytes) and *outlen; or -errno: -ECANCELED (a sender aborted), -ESTALE, -EPROTO.
 */
int ask_rjob_input(struct ask_rjob *j, const struct ask_receiver *r, const uint8_t *p, size_t len,
                   uint64_t now, uint8_t *out, size_t *outlen, unsigned *chan);
bool ask_rjob_begun(const struct ask_rjob *j);
uint16_t ask_rjob_incarnation(const struct ask_rjob *j);
/* Every channel's CLOSE is in. */
bool ask_rjob_closed(const struct ask_rjob *j);
/* Asks the switch for its final counts (a probe now); ask_rjob_finished() once they are in. */
void ask_rjob_finish(struct ask_rjob *j, uint64_t now);
bool ask_rjob_finished(const struct ask_rjob *j);
/* The end-to-end check, once finished (ask_job_check with the channels' totals). */
bool ask_rjob_check(const struct ask_rjob *j, const struct ask_receiver *r, char *why, size_t len);
/* The switches' counts at the end, [0] the receiver's, [1..edges] the edges (NULL without a
 * switch, or before the end), and the senders' totals summed. */
const struct ask_switch_counts *ask_rjob_switch_counts(const struct ask_rjob *j);
const struct ask_totals *ask_rjob_totals(const struct ask_rjob *j);
const char *ask_rjob_error(const struct ask_rjob *j);

/*
 * The sender's side of a job: HELLO the receiver with its channels until it answers with the
 * job's incarnation; after the stream, CLOSE each channel with its totals until acknowledged.
 */
struct ask_sjob_cfg {
	uint16_t task, channel0;
	unsigned nchan, window, nslots, key_bytes;
	uint32_t nonce;      /* this sender's, nonzero: the receiver gives each channel to one */
	uint32_t job;        /* the run's token, as the receiver's (0: none) */
	uint64_t rto_ns;     /* HELLO and CLOSE retry timeout */
	uint64_t timeout_ns; /* no answer to HELLO for this long: the receiver is not there */
	unsigned retries;    /* CLOSE resends before giving up */
};

struct ask_sjob;

struct ask_sjob *ask_sjob_new(const struct ask_sjob_cfg *cfg);
void ask_sjob_free(struct ask_sjob *j);
/* The HELLO or CLOSEs due now, up to max: the count, or -errno (-ETIMEDOUT: no answer); the
 * first pump starts the clock. */
int ask_sjob_pump(struct ask_sjob *j, uint64_t now, struct ask_tx *tx, unsigned max);
/* Takes HELLO_ACK, CLOSE_ACK or ABORT: 1 taken, 0 not a job message (a DATA_ACK, say),
 * -ECANCELED (the receiver aborted the job), -EPROTO (HELLO refused); error says. */
int ask_sjob_input(struct ask_sjob *j, const uint8_t *p, size_t len);
bool ask_sjob_ready(const struct ask_sjob *j);
uint16_t ask_sjob_incarnation(const struct ask_sjob *j);
/* Starts the CLOSEs: tot[k] is channel channel0 + k's. */
void ask_sjob_close(struct ask_sjob *j, const struct ask_totals *tot, uint64_t now);
bool ask_sjob_done(const struct ask_sjob *j);
const char *ask_sjob_error(const struct ask_sjob *j);

/* Retransmission timeout after `tries` resends: rto doubled each time, at most 8 rto. */
static inline uint64_t ask_backoff(uint64_t rto, unsigned tries)
{
	return rto << (tries < 3 ? tries : 3);
}

#endif
