-- SPDX-License-Identifier: BSD-3-Clause
--
-- Wireshark / tshark dissectors for the three protocols inswitch aggregates (docs/wireshark.md):
--   switchml  SwitchML's UDP protocol (SyncAgtr), UDP ports 48864..48879 (0xBEE0..0xBEEF)
--   atp_agg   ATP's raw frames, EtherType 0x0700: IPv4 template, ATP header, 62 values, key
--             (Wireshark's own "atp" is the AppleTalk Transaction Protocol); the job in the
--             key's high half, and inswitch's job frames (seq 0): JOIN and ANNOUNCE
--   ask       ASK's key-value protocol, UDP port 42405 (change it under Preferences > Protocols
--             > ASK, or tshark -o ask.udp_port:N, if `ask config set udp-port` changed it)
--   netrpc    NetRPC service calls, UDP port 20050 (tshark -o netrpc.udp_port:N): the header,
--             and the items as 32-bit words (their layout is the service description's)
-- Every header field is decoded, flags bit by bit, and the values or slots after the header.
--
-- Install: scripts/install-dissector.sh (your personal Lua plugins folder; --system for the
-- global one), or load it for one run: tshark -X lua_script:wireshark/inswitch.lua ...

-- Wireshark 4.0 embeds Lua 5.2: bit operations come from bit32.
local band, rshift = bit32.band, bit32.rshift

---------------------------------------------------------------------------------------------
-- SwitchML (SyncAgtr)
---------------------------------------------------------------------------------------------
local sml = Proto("switchml", "SwitchML (inswitch SyncAgtr)")
local SML_SIZES = { [1] = 64, [3] = 256 }
local sf = {
    msg_type = ProtoField.uint8("switchml.msg_type", "Message type", base.DEC, nil, 0xF0),
    size = ProtoField.uint8("switchml.size", "Size code", base.DEC,
        { [1] = "64 elements", [3] = "256 elements" }, 0x07),
    job = ProtoField.uint8("switchml.job_number", "Job number", base.DEC),
    tsi = ProtoField.uint32("switchml.tsi", "TSI (client packet id, little-endian)", base.DEC),
    pool = ProtoField.uint16("switchml.pool_index", "Pool index", base.HEX),
    pool_set = ProtoField.bool("switchml.pool_index.set", "Set (shadow copy)", 16, nil, 0x8000),
    held = ProtoField.bool("switchml.held", "Holds every result of the old region (region change)",
        8, nil, 0x08),
    pool_b14 = ProtoField.bool("switchml.pool_index.bit14",
        "Bit 14 (region generation parity once the session's region has changed, else 0)",
        16, nil, 0x4000),
    slot = ProtoField.uint16("switchml.pool_index.slot", "Slot", base.DEC, nil, 0x3FFF),
    e0 = ProtoField.int8("switchml.e0", "Exponent e0", base.DEC),
    e1 = ProtoField.int8("switchml.e1", "Exponent e1", base.DEC),
    nvalues = ProtoField.uint16("switchml.values", "Values", base.DEC),
    value = ProtoField.int32("switchml.value", "Value", base.DEC),
    note = ProtoField.bytes("switchml.note", "Region note (docs/memory.md)"),
    note_gen = ProtoField.uint8("switchml.note.gen", "Generation", base.DEC),
    note_job = ProtoField.uint8("switchml.note.job", "Boundary job number", base.DEC),
    note_tsi = ProtoField.uint32("switchml.note.tsi", "Boundary TSI (little-endian)", base.DEC),
    note_slots = ProtoField.uint32("switchml.note.slots", "New region's slots", base.DEC),
}
sml.fields = sf

function sml.dissector(buf, pinfo, tree)
    if buf:len() < 10 then return 0 end
    pinfo.cols.protocol = "SwitchML"
    local t = tree:add(sml, buf(0))
    local ts = buf(0, 1):uint()
    t:add(sf.msg_type, buf(0, 1))
    t:add(sf.size, buf(0, 1))
    t:add(sf.held, buf(0, 1))
    t:add(sf.job, buf(1, 1))
    t:add_le(sf.tsi, buf(2, 4))
    local pool = t:add(sf.pool, buf(6, 2))
    pool:add(sf.pool_set, buf(6, 2))
    pool:add(sf.pool_b14, buf(6, 2))
    pool:add(sf.slot, buf(6, 2))
    t:add(sf.e0, buf(8, 1))
    t:add(sf.e1, buf(9, 1))
    local n = math.floor((buf:len() - 10) / 4)
    local want = SML_SIZES[band(ts, 7)]
    if want ~= nil and want < n then n = want end
    local v = t:add(sf.nvalues, buf(10, n * 4), n)
    for i = 0, n - 1 do
        v:add(sf.value, buf(10 + 4 * i, 4))
    end
    -- a result during a region change: the 16-byte note after the values, "RG" first
    local at = 10 + 4 * n
    if want ~= nil and n == want and buf:len() >= at + 16 and buf(at, 2):string() == "RG" then
        local nt = t:add(sf.note, buf(at, 16))
        nt:add(sf.note_gen, buf(at + 2, 1))
        nt:add(sf.note_job, buf(at + 3, 1))
        nt:add_le(sf.note_tsi, buf(at + 4, 4))
        nt:add(sf.note_slots, buf(at + 8, 4))
    end
    local pi = buf(6, 2):uint()
    local dir = band(pinfo.dst_port, 0xFFF0) == 0xBEE0 and "to the switch" or "result"
    pinfo.cols.info = string.format("SwitchML %s: slot %d set %d, %d values", dir,
        band(pi, 0x3FFF), rshift(pi, 15), n)
    return buf:len()
end

local udp_port = DissectorTable.get("udp.port")
for port = 0xBEE0, 0xBEEF do
    udp_port:add(port, sml)
end

---------------------------------------------------------------------------------------------
-- ATP
---------------------------------------------------------------------------------------------
local atp = Proto("atp_agg", "ATP in-network aggregation (inswitch)")
local af = {
    tos = ProtoField.uint8("atp_agg.template.tos", "Template DSCP/ECN byte", base.HEX),
    ecn = ProtoField.uint8("atp_agg.template.ecn", "Template ECN", base.DEC, nil, 0x03),
    bitmap = ProtoField.uint32("atp_agg.bitmap", "Bitmap (workers)", base.HEX),
    num_worker = ProtoField.uint8("atp_agg.num_worker", "Workers", base.DEC),
    flag = ProtoField.uint8("atp_agg.flag", "Flags", base.HEX),
    f_overflow = ProtoField.bool("atp_agg.flag.overflow", "Overflow (float: to the PS)", 8, nil, 0x80),
    f_psindex = ProtoField.uint8("atp_agg.flag.psindex", "PS index", base.DEC, nil, 0x60),
    f_dataindex = ProtoField.bool("atp_agg.flag.dataindex", "Data index (set by the switch)", 8, nil, 0x10),
    f_ecn = ProtoField.bool("atp_agg.flag.ecn", "ECN (congestion seen)", 8, nil, 0x08),
    f_resend = ProtoField.bool("atp_agg.flag.resend", "Resend", 8, nil, 0x04),
    f_collision = ProtoField.bool("atp_agg.flag.collision", "Collision (aggregator busy)", 8, nil, 0x02),
    f_ack = ProtoField.bool("atp_agg.flag.ack", "ACK (from the PS)", 8, nil, 0x01),
    app = ProtoField.uint16("atp_agg.app", "Application", base.DEC),
    seq = ProtoField.uint16("atp_agg.seq", "Sequence", base.DEC),
    agtr = ProtoField.uint16("atp_agg.agtr", "Aggregator", base.DEC),
    agtr2 = ProtoField.uint16("atp_agg.agtr2", "Aggregator 2 (agtr + 20000, echoed)", base.DEC),
    nvalues = ProtoField.uint16("atp_agg.values", "Values", base.DEC),
    value = ProtoField.int32("atp_agg.value", "Value", base.DEC),
    key = ProtoField.uint64("atp_agg.key", "Tensor key", base.HEX),
    job = ProtoField.uint32("atp_agg.job", "Job (the key's high half)", base.DEC),
    kind = ProtoField.string("atp_agg.kind", "Frame (seq 0: inswitch's job frames)"),
    join_nonce = ProtoField.uint32("atp_agg.join.nonce", "JOIN: worker nonce", base.HEX),
    join_state = ProtoField.uint32("atp_agg.join.state", "JOIN: worker state", base.DEC,
        { [0] = "waiting for a job", [1] = "runs the job, no ACK yet",
          [2] = "runs the job, stalled" }),
    ann_nonce = ProtoField.uint32("atp_agg.announce.nonce", "ANNOUNCE: member nonce", base.HEX),
    len = ProtoField.uint32("atp_agg.len_tensor", "Tensor length (collision ACK: new aggregator)", base.DEC),
    tensor = ProtoField.uint32("atp_agg.tensor", "Tensor (the key's low half)", base.HEX),
    note = ProtoField.bytes("atp_agg.note", "Region note (an ACK with dataIndex: docs/memory.md)"),
    note_first = ProtoField.uint16("atp_agg.note.first", "Region's first aggregator", base.DEC),
    note_size = ProtoField.uint32("atp_agg.note.size", "Region's aggregators", base.DEC),
    note_gen = ProtoField.uint16("atp_agg.note.gen", "Region's generation", base.DEC),
}
atp.fields = af

function atp.dissector(buf, pinfo, tree)
    -- buf starts after the Ethernet header: IPv4 template (20), ATP header (14), values.
    if buf:len() < 34 then return 0 end
    pinfo.cols.protocol = "ATP"
    local t = tree:add(atp, buf(0))
    local tos = t:add(af.tos, buf(1, 1))
    tos:add(af.ecn, buf(1, 1))
    t:add(af.bitmap, buf(20, 4))
    t:add(af.num_worker, buf(24, 1))
    local fl = t:add(af.flag, buf(25, 1))
    for _, f in ipairs({ af.f_overflow, af.f_psindex, af.f_dataindex, af.f_ecn, af.f_resend,
                         af.f_collision, af.f_ack }) do
        fl:add(f, buf(25, 1))
    end
    t:add(af.app, buf(26, 2))
    t:add(af.seq, buf(28, 2))
    t:add(af.agtr, buf(30, 2))
    t:add(af.agtr2, buf(32, 2))
    local n = math.min(62, math.floor((buf:len() - 34) / 4))
    local v = t:add(af.nvalues, buf(34, n * 4), n)
    for i = 0, n - 1 do
        v:add(af.value, buf(34 + 4 * i, 4))
    end
    local flag = buf(25, 1):uint()
    local seq = buf(28, 2):uint()
    local job = nil
    if buf:len() >= 294 then
        t:add(af.key, buf(282, 8))
        t:add(af.len, buf(290, 4))
        job = buf(286, 4):le_uint()
        t:add_le(af.job, buf(286, 4))
        t:add_le(af.tensor, buf(282, 4))
    end
    -- an ACK or ANNOUNCE with dataIndex (a PS clears it): the switch's region note, over the
    -- bitmap and agtr2
    if band(flag, 0x11) == 0x11 then
        local nt = t:add(af.note, buf(20, 4))
        nt:add(af.note_first, buf(20, 2))
        local size = buf(22, 2):uint()
        nt:add(af.note_size, buf(22, 2), size == 0 and 65536 or size)
        nt:add(af.note_gen, buf(32, 2))
    end
    -- seq 0 (ATP's data seqs start at 1): inswitch's job frames (docs/atp.md, Job lifetime)
    local kind = seq ~= 0 and "data" or band(flag, 1) ~= 0 and "ANNOUNCE" or "JOIN"
    t:add(af.kind, kind)
    if kind == "JOIN" and n >= 2 then
        t:add(af.join_nonce, buf(34, 4))
        t:add(af.join_state, buf(38, 4))
        pinfo.cols.info = string.format("ATP app %d JOIN worker bitmap 0x%x nonce 0x%08x job %s",
            buf(26, 2):uint(), buf(20, 4):uint(), buf(34, 4):uint(), tostring(job))
        return buf:len()
    elseif kind == "ANNOUNCE" then
        local w = math.min(n, buf(24, 1):uint())
        for i = 0, w - 1 do
            t:add(af.ann_nonce, buf(34 + 4 * i, 4))
        end
        pinfo.cols.info = string.format("ATP app %d ANNOUNCE job %s, %d workers",
            buf(26, 2):uint(), tostring(job), buf(24, 1):uint())
        return buf:len()
    end
    pinfo.cols.info = string.format("ATP app %d seq %d agtr %d%s%s%s", buf(26, 2):uint(),
        seq, buf(30, 2):uint(), band(flag, 1) ~= 0 and " ACK" or "",
        band(flag, 4) ~= 0 and " resend" or "", band(flag, 2) ~= 0 and " collision" or "")
    return buf:len()
end

DissectorTable.get("ethertype"):add(0x0700, atp)

---------------------------------------------------------------------------------------------
-- ASK
---------------------------------------------------------------------------------------------
local ask = Proto("ask", "ASK key-value aggregation (inswitch)")
local ASK_TYPES = { [1] = "DATA", [2] = "DATA_ACK", [3] = "SWAP", [4] = "SWAP_DONE",
                    [5] = "FETCH", [6] = "FETCH_REPLY", [7] = "BEGIN", [8] = "BEGIN_DONE",
                    [9] = "HELLO", [10] = "HELLO_ACK", [11] = "CLOSE", [12] = "CLOSE_ACK",
                    [13] = "ABORT" }
local ASK_BEGIN_ERRORS = { [0] = "none", [1] = "incarnation", [2] = "shape" }
local ASK_HELLO_ANSWERS = { [0] = "ok", [1] = "another shape", [2] = "channel beyond the task",
                            [3] = "channel taken" }
local ASK_ABORT_REASONS = { [1] = "failed", [2] = "the switch lost the state",
                            [3] = "the end-to-end check failed" }
local ASK_OPS = { [0] = "add", [1] = "max", [2] = "min" }
local kf = {
    type = ProtoField.uint8("ask.type", "Type", base.DEC, ASK_TYPES),
    flags = ProtoField.uint8("ask.flags", "Flags", base.HEX),
    f_resend = ProtoField.bool("ask.flags.resend", "Resend", 8, nil, 0x01),
    f_long = ProtoField.bool("ask.flags.long", "Long (opaque records)", 8, nil, 0x02),
    f_last = ProtoField.bool("ask.flags.last", "Last (channel closed)", 8, nil, 0x04),
    f_error = ProtoField.bool("ask.flags.error", "Error (request refused)", 8, nil, 0x80),
    task = ProtoField.uint16("ask.task", "Task", base.DEC),
    channel = ProtoField.uint16("ask.channel", "Channel", base.DEC),
    nslots = ProtoField.uint8("ask.nslots", "Slots", base.DEC),
    key_bytes = ProtoField.uint8("ask.key_bytes", "Key bytes", base.DEC),
    seq = ProtoField.uint32("ask.seq", "Sequence", base.DEC),
    bitmap = ProtoField.uint32("ask.bitmap", "Bitmap (valid slots)", base.HEX),
    sel = ProtoField.uint32("ask.sel", "Selector (slot | copy << 8)", base.HEX),
    sel_slot = ProtoField.uint32("ask.sel.slot", "Slot", base.DEC, nil, 0xFF),
    sel_copy = ProtoField.uint32("ask.sel.copy", "Copy", base.DEC, nil, 0x100),
    start = ProtoField.uint32("ask.start", "Start", base.DEC),
    count = ProtoField.uint32("ask.count", "Count", base.HEX),
    incarnation = ProtoField.uint16("ask.incarnation", "Task incarnation", base.DEC),
    max_records = ProtoField.uint16("ask.max_records", "Most records", base.DEC),
    records = ProtoField.uint32("ask.records", "Records carried", base.DEC),
    slot = ProtoField.bytes("ask.slot", "Slot"),
    slot_index = ProtoField.uint8("ask.slot.index", "Index", base.DEC),
    slot_valid = ProtoField.bool("ask.slot.valid", "Valid"),
    key = ProtoField.bytes("ask.key", "Key"),
    value = ProtoField.uint32("ask.value", "Value", base.DEC),
    record = ProtoField.bytes("ask.record", "Record"),
    opaque = ProtoField.bytes("ask.opaque", "Opaque records (LONG)"),
    -- jobs (docs/ask.md, Job lifetime)
    expect = ProtoField.uint16("ask.expect", "Incarnation expected", base.DEC),
    nchannels = ProtoField.uint16("ask.channels", "Channels", base.DEC),
    answer = ProtoField.uint16("ask.answer", "Answer", base.DEC, ASK_HELLO_ANSWERS),
    reason = ProtoField.uint16("ask.reason", "Reason", base.DEC, ASK_ABORT_REASONS),
    job = ProtoField.bytes("ask.job", "Job record"),
    job_reg = ProtoField.uint32("ask.job.registration", "Registration", base.HEX),
    job_error = ProtoField.uint8("ask.job.error", "Error", base.DEC, ASK_BEGIN_ERRORS),
    job_flags = ProtoField.uint8("ask.job.flags", "Flags (0x01 started)", base.HEX),
    job_op = ProtoField.uint8("ask.job.op", "Operator", base.DEC, ASK_OPS),
    job_channels = ProtoField.uint16("ask.job.channels", "Channels", base.DEC),
    window = ProtoField.uint32("ask.window", "Window", base.DEC),
    job_aa = ProtoField.uint32("ask.job.aa_size", "AA size", base.DEC),
    tuples = ProtoField.uint64("ask.tuples", "Tuples", base.DEC),
    absorbed = ProtoField.uint64("ask.job.absorbed", "Absorbed", base.DEC),
    held = ProtoField.int64("ask.job.held", "Entries held", base.DEC),
    jobs = ProtoField.uint32("ask.job.jobs", "Jobs started", base.DEC),
    long_tuples = ProtoField.uint64("ask.close.long", "Tuples in LONG records", base.DEC),
    packets = ProtoField.uint32("ask.close.packets", "Packets", base.DEC),
    sum = ProtoField.uint32("ask.close.sum", "Sum of values", base.DEC),
    ck1 = ProtoField.uint32("ask.close.ck1", "Weighted sum 1", base.HEX),
    ck2 = ProtoField.uint32("ask.close.ck2", "Weighted sum 2", base.HEX),
    vmax = ProtoField.int32("ask.close.max", "Largest value", base.DEC),
    vmin = ProtoField.int32("ask.close.min", "Smallest value", base.DEC),
    text = ProtoField.string("ask.text", "Text"),
}
ask.fields = kf
ask.prefs.udp_port = Pref.uint("UDP port", 42405, "The ASK UDP port (ask config set udp-port)")

local function ask_record(t, field, buf, off, kb)
    local r = t:add(field, buf(off, kb + 4))
    r:add(kf.key, buf(off, kb))
    r:add(kf.value, buf(off + kb, 4))
    return r
end

function ask.dissector(buf, pinfo, tree)
    if buf:len() < 24 then return 0 end
    pinfo.cols.protocol = "ASK"
    local t = tree:add(ask, buf(0))
    local ty, flags = buf(0, 1):uint(), buf(1, 1):uint()
    local kb, nslots = buf(7, 1):uint(), buf(6, 1):uint()
    t:add(kf.type, buf(0, 1))
    local fl = t:add(kf.flags, buf(1, 1))
    for _, f in ipairs({ kf.f_resend, kf.f_long, kf.f_last, kf.f_error }) do
        fl:add(f, buf(1, 1))
    end
    t:add(kf.task, buf(2, 2))
    t:add(kf.channel, buf(4, 2))
    t:add(kf.nslots, buf(6, 1))
    t:add(kf.key_bytes, buf(7, 1))
    t:add(kf.seq, buf(8, 4))
    if ty == 1 or ty == 2 or ty >= 7 then
        t:add(kf.bitmap, buf(12, 4))
    else
        local s = t:add(kf.sel, buf(12, 4))
        s:add(kf.sel_slot, buf(12, 4))
        s:add(kf.sel_copy, buf(12, 4))
    end
    t:add(kf.start, buf(16, 4))
    local c = t:add(kf.count, buf(20, 4))
    if ty == 6 then
        c:add(kf.records, buf(20, 4))
    elseif ty == 9 then
        c:add(kf.nchannels, buf(22, 2))
    else
        c:add(kf.incarnation, buf(20, 2))
        if ty == 5 then c:add(kf.max_records, buf(22, 2)) end
        if ty == 7 then c:add(kf.expect, buf(22, 2)) end
        if ty == 10 then c:add(kf.answer, buf(22, 2)) end
        if ty == 13 then c:add(kf.reason, buf(22, 2)) end
    end
    local pay = buf:len() - 24
    local bitmap = buf(12, 4):uint()
    if ty == 1 and band(flags, 2) ~= 0 then
        if pay > 0 then t:add(kf.opaque, buf(24, pay)) end
    elseif ty == 1 and (kb == 4 or kb == 8 or kb == 16) then
        for j = 0, nslots - 1 do
            local off = 24 + j * (kb + 4)
            if off + kb + 4 > buf:len() then break end
            local s = ask_record(t, kf.slot, buf, 24 + j * (kb + 4), kb)
            s:add(kf.slot_index, j)
            s:add(kf.slot_valid, band(rshift(bitmap, j), 1) == 1)
        end
    elseif (ty == 7 or ty == 8) and pay >= 48 then
        local j = t:add(kf.job, buf(24, 48))
        j:add(kf.job_reg, buf(24, 4))
        j:add(kf.job_error, buf(28, 1))
        j:add(kf.job_flags, buf(29, 1))
        j:add(kf.job_op, buf(30, 1))
        j:add(kf.job_channels, buf(32, 2))
        j:add(kf.window, buf(36, 4))
        j:add(kf.job_aa, buf(40, 4))
        j:add(kf.tuples, buf(44, 8))
        j:add(kf.absorbed, buf(52, 8))
        j:add(kf.held, buf(60, 8))
        j:add(kf.jobs, buf(68, 4))
    elseif ty == 9 and pay >= 4 then
        t:add(kf.window, buf(24, 4))
    elseif ty == 11 and pay >= 40 then
        t:add(kf.tuples, buf(24, 8))
        t:add(kf.long_tuples, buf(32, 8))
        t:add(kf.packets, buf(40, 4))
        t:add(kf.sum, buf(44, 4))
        t:add(kf.ck1, buf(48, 4))
        t:add(kf.ck2, buf(52, 4))
        t:add(kf.vmax, buf(56, 4))
        t:add(kf.vmin, buf(60, 4))
    elseif ty == 13 and pay > 0 then
        t:add(kf.text, buf(24, pay))
    elseif ty == 6 and (kb == 4 or kb == 8 or kb == 16) then
        local n = buf(20, 4):uint()
        for i = 0, n - 1 do
            local off = 24 + i * (kb + 4)
            if off + kb + 4 > buf:len() then break end
            ask_record(t, kf.record, buf, off, kb)
        end
    end
    pinfo.cols.info = string.format("ASK %s task %d channel %d seq %d",
        ASK_TYPES[ty] or tostring(ty), buf(2, 2):uint(), buf(4, 2):uint(), buf(8, 4):uint())
    return buf:len()
end

-- Registers proto on UDP port `default`, and moves it when its preference udp_port changes.
local function on_udp_port(proto, default)
    local port = default
    udp_port:add(port, proto)
    proto.init = function()
        if proto.prefs.udp_port ~= port then
            udp_port:remove(port, proto)
            port = proto.prefs.udp_port
            udp_port:add(port, proto)
        end
    end
end

on_udp_port(ask, 42405)

---------------------------------------------------------------------------------------------
-- NetRPC (docs/netrpc.md, The wire format)
---------------------------------------------------------------------------------------------
local nrpc = Proto("netrpc", "NetRPC service call (inswitch)")
local nf = {
    service = ProtoField.uint8("netrpc.service", "Service id", base.DEC),
    op = ProtoField.uint8("netrpc.op", "Operation", base.DEC),
    flags = ProtoField.uint8("netrpc.flags", "Flags", base.HEX),
    f_result = ProtoField.bool("netrpc.flags.result", "Result (from the switch or the server)",
        8, nil, 0x01),
    f_resend = ProtoField.bool("netrpc.flags.resend", "Retransmission", 8, nil, 0x02),
    f_set = ProtoField.bool("netrpc.flags.set", "Set (the shadow copy of a round)", 8, nil, 0x04),
    f_miss = ProtoField.bool("netrpc.flags.miss", "Miss (to the server)", 8, nil, 0x08),
    f_error = ProtoField.bool("netrpc.flags.error", "Error", 8, nil, 0x80),
    count = ProtoField.uint8("netrpc.count", "Items", base.DEC),
    member = ProtoField.uint16("netrpc.member", "Member (rank)", base.DEC),
    seq = ProtoField.uint32("netrpc.seq", "Sequence", base.DEC),
    key = ProtoField.uint32("netrpc.key", "Key (array, integer: the first item's)", base.DEC),
    words = ProtoField.uint16("netrpc.words", "32-bit words after the header", base.DEC),
    word = ProtoField.uint32("netrpc.word", "Word", base.HEX),
}
nrpc.fields = nf
nrpc.prefs.udp_port = Pref.uint("UDP port", 20050,
    "The NetRPC UDP port (netrpc config set udp-port)")

-- The items' layout depends on the service's description, which the packet does not carry:
-- they are shown as 32-bit words.
function nrpc.dissector(buf, pinfo, tree)
    if buf:len() < 16 then return 0 end
    pinfo.cols.protocol = "NetRPC"
    local t = tree:add(nrpc, buf(0))
    t:add(nf.service, buf(0, 1))
    t:add(nf.op, buf(1, 1))
    local fl = t:add(nf.flags, buf(2, 1))
    for _, f in ipairs({ nf.f_result, nf.f_resend, nf.f_set, nf.f_miss, nf.f_error }) do
        fl:add(f, buf(2, 1))
    end
    t:add(nf.count, buf(3, 1))
    t:add(nf.member, buf(4, 2))
    t:add(nf.seq, buf(8, 4))
    t:add(nf.key, buf(12, 4))
    local n = math.floor((buf:len() - 16) / 4)
    local w = t:add(nf.words, buf(16, n * 4), n)
    for i = 0, n - 1 do
        w:add(nf.word, buf(16 + 4 * i, 4))
    end
    pinfo.cols.info = string.format("NetRPC %s service %d op %d member %d seq %d",
        band(buf(2, 1):uint(), 1) ~= 0 and "result" or "call", buf(0, 1):uint(),
        buf(1, 1):uint(), buf(4, 2):uint(), buf(8, 4):uint())
    return buf:len()
end

on_udp_port(nrpc, 20050)
