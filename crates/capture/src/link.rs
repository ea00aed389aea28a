//! Capture formats and link layers down to TCP segments.
use crate::{CaptureError, Flow, Segment};
use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::DataLink;
use std::net::SocketAddr;
use std::time::Duration;

const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

/// Calls `f` with every TCP segment in the capture, in capture order.
pub(crate) fn for_each_tcp_segment(bytes: &[u8], mut f: impl FnMut(Segment<'_>)) -> Result<(), CaptureError> {
    let format = |e: pcap_file::PcapError| CaptureError::Format(e.to_string());
    let mut index = 0;
    if bytes.starts_with(&PCAPNG_MAGIC) {
        let mut reader = PcapNgReader::new(bytes).map_err(format)?;
        let mut link_types = Vec::new();
        while let Some(block) = reader.next_block() {
            match block.map_err(format)? {
                Block::InterfaceDescription(idb) => link_types.push(idb.linktype),
                Block::EnhancedPacket(epb) => {
                    let link = *link_types.get(epb.interface_id as usize).ok_or_else(|| {
                        CaptureError::Format(format!("packet names unknown interface {}", epb.interface_id))
                    })?;
                    // pcap-file reports pcapng timestamps in the default microsecond resolution.
                    handle_packet(index, link, epb.timestamp, epb.original_len, &epb.data, &mut f)?;
                    index += 1;
                }
                _ => {}
            }
        }
    } else {
        let mut reader = PcapReader::new(bytes).map_err(format)?;
        let link = reader.header().datalink;
        while let Some(packet) = reader.next_packet() {
            let packet = packet.map_err(format)?;
            handle_packet(index, link, packet.timestamp, packet.orig_len, &packet.data, &mut f)?;
            index += 1;
        }
    }
    Ok(())
}

fn handle_packet(
    index: usize,
    link: DataLink,
    timestamp: Duration,
    original_len: u32,
    data: &[u8],
    f: &mut impl FnMut(Segment<'_>),
) -> Result<(), CaptureError> {
    if (data.len() as u64) < u64::from(original_len) {
        return Err(CaptureError::Truncated { index });
    }
    let sliced = match link {
        DataLink::ETHERNET => SlicedPacket::from_ethernet(data),
        DataLink::LINUX_SLL => SlicedPacket::from_linux_sll(data),
        // LINUX_SLL2: 20-byte header whose first two bytes are the EtherType.
        DataLink::LINUX_SLL2 => SlicedPacket::from_ip(data.get(20..).unwrap_or_default()),
        // BSD loopback: a 4-byte address family in host order, then the IP packet.
        DataLink::NULL | DataLink::LOOP => SlicedPacket::from_ip(data.get(4..).unwrap_or_default()),
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => SlicedPacket::from_ip(data),
        other => return Err(CaptureError::UnsupportedLinkType(u32::from(other))),
    };
    // Packets that are not TCP over IP (ARP, UDP, malformed) are none of our business.
    let Ok(packet) = sliced else { return Ok(()) };
    let (Some(net), Some(TransportSlice::Tcp(tcp))) = (packet.net, packet.transport) else { return Ok(()) };
    let (src, dst) = match net {
        NetSlice::Ipv4(ip) => (ip.header().source_addr().into(), ip.header().destination_addr().into()),
        NetSlice::Ipv6(ip) => (ip.header().source_addr().into(), ip.header().destination_addr().into()),
        NetSlice::Arp(_) => return Ok(()),
    };
    let flow = Flow { src: SocketAddr::new(src, tcp.source_port()), dst: SocketAddr::new(dst, tcp.destination_port()) };
    f(Segment { timestamp, flow, seq: tcp.sequence_number(), syn: tcp.syn(), payload: tcp.payload() });
    Ok(())
}
