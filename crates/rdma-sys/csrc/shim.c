/* See shim.h. */
#include <string.h>
#include "shim.h"

int nfsbench_ibv_post_send(struct ibv_qp *qp, uint64_t wr_id, uint64_t addr, uint32_t length,
                           uint32_t lkey)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };
	struct ibv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	return ibv_post_send(qp, &wr, &bad);
}

/* One signaled RDMA Read or Write of `num_sge` local pieces to or from the peer's remote_addr/rkey. */
static int post_rdma_sgl(struct ibv_qp *qp, enum ibv_wr_opcode opcode, uint64_t wr_id, struct ibv_sge *sges,
                         int num_sge, uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = sges;
	wr.num_sge = num_sge;
	wr.opcode = opcode;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = remote_addr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

int nfsbench_ibv_post_rdma(struct ibv_qp *qp, int write, uint64_t wr_id, uint64_t addr,
                           uint32_t length, uint32_t lkey, uint64_t remote_addr, uint32_t rkey)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	return post_rdma_sgl(qp, write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ, wr_id, &sge, 1, remote_addr, rkey);
}

int nfsbench_ibv_post_write_sgl(struct ibv_qp *qp, uint64_t wr_id, struct ibv_sge *sges, int num_sge,
                                uint64_t remote_addr, uint32_t rkey)
{
	return post_rdma_sgl(qp, IBV_WR_RDMA_WRITE, wr_id, sges, num_sge, remote_addr, rkey);
}

struct ibv_mw *nfsbench_ibv_alloc_mw_type2(struct ibv_pd *pd)
{
	return ibv_alloc_mw(pd, IBV_MW_TYPE_2);
}

int nfsbench_ibv_dealloc_mw(struct ibv_mw *mw)
{
	return ibv_dealloc_mw(mw);
}

uint32_t nfsbench_ibv_inc_rkey(uint32_t rkey)
{
	return ibv_inc_rkey(rkey);
}

int nfsbench_ibv_post_bind_mw(struct ibv_qp *qp, uint64_t wr_id, struct ibv_mw *mw, uint32_t rkey,
                              struct ibv_mr *mr, uint64_t addr, uint64_t length, unsigned int access)
{
	struct ibv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = length;
	wr.bind_mw.bind_info.mw_access_flags = access;
	int rc = ibv_post_send(qp, &wr, &bad);
	/* The provider names the window by its current key when posting (rxe checks it against the
	 * kernel's); a type-2 binding through ibv_post_send leaves updating it to the caller. */
	if (rc == 0)
		mw->rkey = rkey;
	return rc;
}

int nfsbench_ibv_post_local_inv(struct ibv_qp *qp, uint64_t wr_id, uint32_t rkey)
{
	struct ibv_send_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.opcode = IBV_WR_LOCAL_INV;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.invalidate_rkey = rkey;
	return ibv_post_send(qp, &wr, &bad);
}

int nfsbench_ibv_post_recv(struct ibv_qp *qp, uint64_t wr_id, uint64_t addr, uint32_t length,
                           uint32_t lkey)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };
	struct ibv_recv_wr wr, *bad = NULL;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	return ibv_post_recv(qp, &wr, &bad);
}

int nfsbench_ibv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	return ibv_poll_cq(cq, num_entries, wc);
}

int nfsbench_ibv_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return ibv_req_notify_cq(cq, solicited_only);
}

struct ibv_mr *nfsbench_ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr(pd, addr, length, access);
}

struct sockaddr *nfsbench_rdma_get_local_addr(struct rdma_cm_id *id)
{
	return rdma_get_local_addr(id);
}

struct sockaddr *nfsbench_rdma_get_peer_addr(struct rdma_cm_id *id)
{
	return rdma_get_peer_addr(id);
}
