// SPDX-License-Identifier: BSD-3-Clause
/*
 * inswitch._c10d: the "inswitch" torch.distributed backend (a c10d::ProcessGroup), built against
 * Debian's libtorch-dev 1.13. inswitch/torch.py registers it and opens the communicator.
 *
 * all_reduce and allreduce_coalesced of int32 and float32 CPU tensors (SUM; AVG for float32)
 * go through the switch: one worker thread per group runs them in the order they were called,
 * through the communicator's own functions (isw_sa_allreduce or isw_atp_allreduce of the
 * libinswitch-host that inswitch._native loaded, whose addresses torch.py passes in, so both
 * languages drive one copy of the library). Every other collective, and an all_reduce the
 * switch cannot do (another op, dtype, device or layout), goes to the gloo group made from the
 * same store; the latter says so once per kind on stderr (TORCH_WARN). barrier() runs after
 * every all_reduce queued before it.
 *
 * Never calls into Python; the worker thread is the only one that calls the communicator's
 * allreduce (the library is not thread-safe per communicator).
 *
 * Python interface (module inswitch._c10d):
 *   ProcessGroupInswitch(gloo, rank, size, protocol, handle, allreduce, stats, close, verify)
 *       takes over the communicator handle (closed when the group is destroyed); protocol
 *       "syncagtr" or "atp"; allreduce, stats, close: the addresses of that protocol's
 *       isw_*_allreduce, isw_*_stats and isw_*_close; handle 0: no switch, everything to gloo
 *       (a group other than the default one).
 *   .stats() -> dict: the communicator's counters (isw_host_stats) and the backend's: switch_calls,
 *       switch_elements, copied (calls through a contiguous copy), fallbacks (all_reduces sent
 *       to gloo); .protocol, .verify.
 */
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/utils/pybind.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <functional>
#include <set>
#include <thread>

extern "C" {
#include "isw_host.h"
}

namespace
{

using c10d::OpType;
using c10d::ProcessGroup;
using c10d::ReduceOp;

// One communicator of libinswitch-host, through the functions of the copy Python loaded.
struct Comm {
	std::string protocol;
	std::function<int(void *, uint64_t, int, int, char *, size_t)> allreduce;
	std::function<void(struct isw_host_stats *)> stats;
	std::function<void()> close;
};

template <typename H>
Comm comm_bind(const std::string &protocol, uintptr_t handle, uintptr_t ar, uintptr_t st,
               uintptr_t cl)
{
	using ar_fn = int (*)(H *, void *, uint64_t, int, int, char *, size_t);
	using st_fn = void (*)(const H *, struct isw_host_stats *);
	using cl_fn = void (*)(H *);
	H *h = reinterpret_cast<H *>(handle);
	auto a = reinterpret_cast<ar_fn>(ar);
	auto s = reinterpret_cast<st_fn>(st);
	auto c = reinterpret_cast<cl_fn>(cl);
	Comm m;
	m.protocol = protocol;
	m.allreduce = [h, a](void *buf, uint64_t n, int dt, int v, char *err, size_t len) {
		return a(h, buf, n, dt, v, err, len);
	};
	m.stats = [h, s](struct isw_host_stats *out) { s(h, out); };
	m.close = [h, c]() { c(h); };
	return m;
}

// All of a call's tensors come back through this future and Work (DDP waits on the future).
class InswitchWork : public c10d::Work
{
      public:
	InswitchWork(int rank, OpType type, std::vector<at::Tensor> outputs)
	    : Work(rank, type, "inswitch:all_reduce",
	           c10::optional<std::vector<at::Tensor>>(outputs)),
	      outputs_(std::move(outputs)), future_(c10::make_intrusive<c10::ivalue::Future>(
	                                            c10::ListType::create(c10::TensorType::get())))
	{
	}

	// Completes the work, with an error when e is set.
	void complete(std::exception_ptr e)
	{
		if (e)
			future_->setError(e);
		else
			future_->markCompleted(c10::IValue(outputs_));
		finish(e);
	}

	c10::intrusive_ptr<c10::ivalue::Future> getFuture() override
	{
		return future_;
	}

	std::vector<at::Tensor> result() override
	{
		return outputs_;
	}

      private:
	std::vector<at::Tensor> outputs_;
	c10::intrusive_ptr<c10::ivalue::Future> future_;
};

// A queued call: an allreduce of tensors in place, or a barrier on gloo.
struct Job {
	c10::intrusive_ptr<InswitchWork> work;
	std::vector<at::Tensor> tensors;
	bool average = false;
	bool barrier = false;
	c10d::BarrierOptions barrier_opts;
};

class ProcessGroupInswitch : public ProcessGroup
{
      public:
	ProcessGroupInswitch(c10::intrusive_ptr<ProcessGroup> gloo, int rank, int size, Comm comm,
	                     bool has_comm, bool verify)
	    : ProcessGroup(rank, size), gloo_(std::move(gloo)), comm_(std::move(comm)),
	      has_comm_(has_comm), verify_(verify)
	{
		thread_ = std::thread([this] { loop(); });
	}

	~ProcessGroupInswitch() override
	{
		{
			std::lock_guard<std::mutex> l(m_);
			stop_ = true;
		}
		cv_.notify_all();
		thread_.join();
		if (has_comm_)
			comm_.close();
	}

	const std::string getBackendName() const override
	{
		return "inswitch";
	}

	c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor> &tensors,
	                                         const c10d::AllreduceOptions &opts) override
	{
		if (!has_comm_) // a group without the switch: its creation said so
			return gloo_->allreduce(tensors, opts);
		std::string why = refusal(tensors, opts.reduceOp, tensors.size() != 1);
		if (!why.empty())
			return fallback(why, [&] { return gloo_->allreduce(tensors, opts); });
		return enqueue(OpType::ALLREDUCE, tensors, opts.reduceOp.op_ == ReduceOp::AVG);
	}

	c10::intrusive_ptr<c10d::Work>
	allreduce_coalesced(std::vector<at::Tensor> &tensors,
	                    const c10d::AllreduceCoalescedOptions &opts) override
	{
		if (!has_comm_)
			return gloo_->allreduce_coalesced(tensors, opts);
		std::string why = refusal(tensors, opts.reduceOp, tensors.empty());
		if (!why.empty())
			return fallback(why,
			                [&] { return gloo_->allreduce_coalesced(tensors, opts); });
		return enqueue(OpType::ALLREDUCE_COALESCED, tensors,
		               opts.reduceOp.op_ == ReduceOp::AVG);
	}

	c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions &opts) override
	{
		Job j;
		j.work = c10::make_intrusive<InswitchWork>(rank_, OpType::BARRIER,
		                                           std::vector<at::Tensor>());
		j.barrier = true;
		j.barrier_opts = opts;
		return push(std::move(j));
	}

	// The collectives the switch does not do: gloo's, unchanged.
	c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor> &t,
	                                         const c10d::BroadcastOptions &o) override
	{
		return gloo_->broadcast(t, o);
	}
	c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor> &t,
	                                      const c10d::ReduceOptions &o) override
	{
		return gloo_->reduce(t, o);
	}
	c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>> &out,
	                                         std::vector<at::Tensor> &in,
	                                         const c10d::AllgatherOptions &o) override
	{
		return gloo_->allgather(out, in, o);
	}
	c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor &out, at::Tensor &in,
	                                               const c10d::AllgatherOptions &o) override
	{
		return gloo_->_allgather_base(out, in, o);
	}
	c10::intrusive_ptr<c10d::Work>
	allgather_coalesced(std::vector<std::vector<at::Tensor>> &out, std::vector<at::Tensor> &in,
	                    const c10d::AllgatherOptions &o) override
	{
		return gloo_->allgather_coalesced(out, in, o);
	}
	c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>> &out,
	                                      std::vector<at::Tensor> &in,
	                                      const c10d::GatherOptions &o) override
	{
		return gloo_->gather(out, in, o);
	}
	c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor> &out,
	                                       std::vector<std::vector<at::Tensor>> &in,
	                                       const c10d::ScatterOptions &o) override
	{
		return gloo_->scatter(out, in, o);
	}
	c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor> &out,
	                                              std::vector<std::vector<at::Tensor>> &in,
	                                              const c10d::ReduceScatterOptions &o) override
	{
		return gloo_->reduce_scatter(out, in, o);
	}
	c10::intrusive_ptr<c10d::Work>
	_reduce_scatter_base(at::Tensor &out, at::Tensor &in,
	                     const c10d::ReduceScatterOptions &o) override
	{
		return gloo_->_reduce_scatter_base(out, in, o);
	}
	c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor &out, at::Tensor &in,
	                                             std::vector<int64_t> &out_splits,
	                                             std::vector<int64_t> &in_splits,
	                                             const c10d::AllToAllOptions &o) override
	{
		return gloo_->alltoall_base(out, in, out_splits, in_splits, o);
	}
	c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor> &out,
	                                        std::vector<at::Tensor> &in,
	                                        const c10d::AllToAllOptions &o) override
	{
		return gloo_->alltoall(out, in, o);
	}
	void monitoredBarrier(const c10d::BarrierOptions &o, bool wait_all_ranks) override
	{
		gloo_->monitoredBarrier(o, wait_all_ranks);
	}
	void setSequenceNumberForGroup() override
	{
		gloo_->setSequenceNumberForGroup();
	}
	uint64_t getSequenceNumberForGroup() override
	{
		return gloo_->getSequenceNumberForGroup();
	}
	c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor> &t, int dst, int tag) override
	{
		return gloo_->send(t, dst, tag);
	}
	c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor> &t, int src, int tag) override
	{
		return gloo_->recv(t, src, tag);
	}
	c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor> &t, int tag) override
	{
		return gloo_->recvAnysource(t, tag);
	}

	// The communicator's counters and the backend's.
	py::dict stats()
	{
		struct isw_host_stats s = {};
		if (has_comm_) {
			std::lock_guard<std::mutex> l(comm_m_);
			comm_.stats(&s);
		}
		py::dict d;
		d["jobs"] = s.jobs;
		d["elements"] = s.elements;
		d["packets"] = s.packets;
		d["retransmits"] = s.retransmits;
		d["results"] = s.results;
		d["duplicates"] = s.duplicates;
		d["verified"] = s.verified;
		d["seconds"] = s.seconds;
		d["switch_calls"] = switch_calls_.load();
		d["switch_elements"] = switch_elements_.load();
		d["copied"] = copied_.load();
		d["fallbacks"] = fallbacks_.load();
		return d;
	}

	std::string protocol() const
	{
		return has_comm_ ? comm_.protocol : std::string("gloo");
	}

	bool verify() const
	{
		return verify_;
	}

      private:
	// Why the switch cannot do this reduction ("" if it can).
	std::string refusal(const std::vector<at::Tensor> &ts, const ReduceOp &op, bool bad_count)
	{
		if (bad_count)
			return c10::str(
			        "an all_reduce of a list of ", ts.size(),
			        " tensors runs on gloo: the switch reduces one tensor a call");
		if (op.op_ != ReduceOp::SUM && op.op_ != ReduceOp::AVG)
			return c10::str(
			        "ReduceOp ", op_name(op),
			        " runs on gloo: the switch only sums (SUM; AVG for float32)");
		for (const auto &t : ts) {
			auto dt = t.scalar_type();
			if (dt != at::kInt && dt != at::kFloat)
				return c10::str(
				        "an all_reduce of ", dt,
				        " tensors runs on gloo: the switch sums int32 and float32");
			if (dt != ts[0].scalar_type())
				return "an all_reduce_coalesced of mixed dtypes runs on gloo";
			if (dt == at::kInt && op.op_ == ReduceOp::AVG)
				return "ReduceOp AVG of int32 tensors runs on gloo: the switch "
				       "averages "
				       "float32 only";
			if (!t.device().is_cpu())
				return c10::str(
				        "an all_reduce of ", t.device().type(),
				        " tensors runs on gloo: the switch takes CPU tensors");
			if (t.layout() != at::kStrided)
				return c10::str(
				        "an all_reduce of ", t.layout(),
				        " tensors runs on gloo: the switch takes dense tensors");
		}
		return "";
	}

	static const char *op_name(const ReduceOp &op)
	{
		switch (op.op_) {
		case ReduceOp::PRODUCT:
			return "PRODUCT";
		case ReduceOp::MIN:
			return "MIN";
		case ReduceOp::MAX:
			return "MAX";
		case ReduceOp::BAND:
			return "BAND";
		case ReduceOp::BOR:
			return "BOR";
		case ReduceOp::BXOR:
			return "BXOR";
		default:
			return "PREMUL_SUM";
		}
	}

	// Hands a refused all_reduce to gloo; says so once per kind, counts every one.
	template <typename F> c10::intrusive_ptr<c10d::Work> fallback(const std::string &why, F run)
	{
		fallbacks_++;
		bool first;
		{
			std::lock_guard<std::mutex> l(m_);
			first = warned_.insert(why).second;
		}
		if (first)
			TORCH_WARN("inswitch: ", why, " (said once)");
		return run();
	}

	c10::intrusive_ptr<c10d::Work> enqueue(OpType type, std::vector<at::Tensor> &tensors,
	                                       bool average)
	{
		Job j;
		j.work = c10::make_intrusive<InswitchWork>(rank_, type, tensors);
		j.tensors = tensors;
		j.average = average;
		return push(std::move(j));
	}

	c10::intrusive_ptr<c10d::Work> push(Job j)
	{
		auto w = j.work;
		{
			std::lock_guard<std::mutex> l(m_);
			queue_.push_back(std::move(j));
		}
		cv_.notify_one();
		return w;
	}

	void loop()
	{
		for (;;) {
			std::unique_lock<std::mutex> l(m_);
			cv_.wait(l, [this] { return stop_ || !queue_.empty(); });
			if (queue_.empty())
				return; // stopped, and nothing left
			Job j = std::move(queue_.front());
			queue_.pop_front();
			l.unlock();
			std::exception_ptr e;
			try {
				if (j.barrier)
					gloo_->barrier(j.barrier_opts)->wait();
				else
					run(j);
			} catch (...) {
				e = std::current_exception();
			}
			j.work->complete(e);
		}
	}

	// The tensors summed over the workers by the switch, in place.
	void run(Job &j)
	{
		// in place, outside autograd, as gloo writes its results (a leaf that requires grad
		// may be reduced)
		at::NoGradGuard no_grad;
		auto &ts = j.tensors;
		bool direct = ts.size() == 1 && ts[0].is_contiguous();
		at::Tensor flat;
		if (direct) {
			flat = ts[0];
		} else {
			int64_t total = 0;
			for (const auto &t : ts)
				total += t.numel();
			flat = at::empty({total}, ts[0].options());
			int64_t off = 0;
			for (const auto &t : ts) {
				flat.narrow(0, off, t.numel()).view(t.sizes()).copy_(t);
				off += t.numel();
			}
			copied_++;
		}
		int dtype = flat.scalar_type() == at::kInt ? ISW_INT32 : ISW_FLOAT32;
		char err[1024] = "";
		int rc;
		{
			std::lock_guard<std::mutex> l(comm_m_);
			rc = comm_.allreduce(flat.data_ptr(), (uint64_t)flat.numel(), dtype,
			                     verify_ ? 1 : 0, err, sizeof(err));
		}
		// -EBADMSG: the switch's result arrived and failed the check: it is written back,
		// as the Python API does, and the call fails.
		TORCH_CHECK(rc == 0 || rc == -EBADMSG, "inswitch all_reduce (", comm_.protocol,
		            ", ", strerrorname_np(-rc), "): ", err);
		switch_calls_++;
		switch_elements_ += (uint64_t)flat.numel();
		if (j.average)
			flat.div_(size_);
		if (!direct) {
			int64_t off = 0;
			for (auto &t : ts) {
				t.copy_(flat.narrow(0, off, t.numel()).view(t.sizes()));
				off += t.numel();
			}
		}
		TORCH_CHECK(rc == 0, "inswitch all_reduce (", comm_.protocol,
		            "): the result failed the end-to-end check: ", err);
	}

	c10::intrusive_ptr<ProcessGroup> gloo_;
	Comm comm_;
	const bool has_comm_;
	const bool verify_;

	std::mutex m_; // queue_, stop_, warned_
	std::condition_variable cv_;
	std::deque<Job> queue_;
	bool stop_ = false;
	std::set<std::string> warned_;
	std::thread thread_;
	std::mutex comm_m_; // the communicator: allreduce (worker thread) against stats

	std::atomic<uint64_t> switch_calls_{0}, switch_elements_{0}, copied_{0}, fallbacks_{0};
};

c10::intrusive_ptr<ProcessGroupInswitch> create(c10::intrusive_ptr<ProcessGroup> gloo, int rank,
                                                int size, const std::string &protocol,
                                                uintptr_t handle, uintptr_t allreduce,
                                                uintptr_t stats, uintptr_t close, bool verify)
{
	Comm comm;
	if (handle) {
		TORCH_CHECK(allreduce && stats && close, "inswitch: the communicator's functions");
		if (protocol == "syncagtr")
			comm = comm_bind<struct isw_sa>(protocol, handle, allreduce, stats, close);
		else if (protocol == "atp")
			comm = comm_bind<struct isw_atp>(protocol, handle, allreduce, stats, close);
		else
			TORCH_CHECK(false, "inswitch: protocol '", protocol,
			            "' is not syncagtr or atp");
	}
	return c10::make_intrusive<ProcessGroupInswitch>(std::move(gloo), rank, size,
	                                                 std::move(comm), handle != 0, verify);
}

} // namespace

PYBIND11_MODULE(_c10d, m)
{
	m.doc() = "The inswitch torch.distributed backend (register it with import inswitch.torch)";
	py::class_<ProcessGroupInswitch, ProcessGroup, c10::intrusive_ptr<ProcessGroupInswitch>>(
	        m, "ProcessGroupInswitch")
	        .def(py::init(&create), py::arg("gloo"), py::arg("rank"), py::arg("size"),
	             py::arg("protocol"), py::arg("handle"), py::arg("allreduce"), py::arg("stats"),
	             py::arg("close"), py::arg("verify"))
	        .def("stats", &ProcessGroupInswitch::stats,
	             "the communicator's counters and the backend's")
	        .def_property_readonly("protocol", &ProcessGroupInswitch::protocol)
	        .def_property_readonly("verify", &ProcessGroupInswitch::verify);
}
