use crate::{effective_thresholds, ConnectPrivate, InlineThresholds, CONNECT_PRIVATE_LEN};

const LINUX_4K: [u8; 8] = [0xF6, 0xAB, 0x0E, 0x18, 1, 1, 3, 3];

#[test]
fn linux_client_private_data_for_4k_inline_encodes_sizes_as_3_and_3() {
    let p = ConnectPrivate::new(4096, 4096, true);
    assert_eq!(p.encode(), LINUX_4K);
    let back = ConnectPrivate::decode(&LINUX_4K).unwrap();
    assert_eq!(back, p);
    assert_eq!((back.send_size(), back.recv_size(), back.remote_invalidation()), (4096, 4096, true));
}

#[test]
fn private_data_padded_by_the_connection_manager_still_decodes() {
    let mut padded = [0u8; 56];
    padded[..CONNECT_PRIVATE_LEN].copy_from_slice(&LINUX_4K);
    assert_eq!(ConnectPrivate::decode(&padded), ConnectPrivate::decode(&LINUX_4K));
}

#[test]
fn anything_else_means_no_private_data_and_1024_bytes_each_way() {
    let mut wrong_magic = LINUX_4K;
    wrong_magic[0] = 0xF7;
    let mut wrong_version = LINUX_4K;
    wrong_version[4] = 2;
    for bad in [&LINUX_4K[..7], &[][..], &wrong_magic[..], &wrong_version[..]] {
        assert_eq!(ConnectPrivate::decode(bad), None, "{bad:?}");
        let local = InlineThresholds { send: 4096, recv: 4096 };
        assert_eq!(effective_thresholds(local, Some(bad)), InlineThresholds { send: 1024, recv: 1024 });
    }
    assert_eq!(effective_thresholds(InlineThresholds { send: 4096, recv: 4096 }, None), InlineThresholds::DEFAULT);
    assert_eq!(InlineThresholds::default(), InlineThresholds { send: 1024, recv: 1024 });
}

#[test]
fn each_side_sends_no_more_than_the_peer_receives_and_expects_no_more_than_it_sends() {
    let local = InlineThresholds { send: 8192, recv: 8192 };
    let peer = ConnectPrivate::new(4096, 2048, false);
    assert_eq!(local.negotiate(Some(&peer)), InlineThresholds { send: 2048, recv: 4096 });
    let small = InlineThresholds { send: 1024, recv: 1024 };
    assert_eq!(small.negotiate(Some(&peer)), small, "never raised above our own sizes");
    assert_eq!(effective_thresholds(local, Some(&LINUX_4K)), InlineThresholds { send: 4096, recv: 4096 });
}

#[test]
fn sizes_round_down_to_a_kib_and_clamp_to_what_one_byte_expresses() {
    let sizes = |s| {
        let p = ConnectPrivate::new(s, s, false);
        (p.send_size(), p.encode()[6])
    };
    assert_eq!(sizes(5000), (4096, 3));
    assert_eq!(sizes(1024), (1024, 0));
    assert_eq!(sizes(1023), (1024, 0));
    assert_eq!(sizes(0), (1024, 0));
    assert_eq!(sizes(256 * 1024), (256 * 1024, 255));
    assert_eq!(sizes(u32::MAX), (256 * 1024, 255));
    assert_eq!(
        InlineThresholds { send: 4096, recv: 8192 }.to_private(true).encode(),
        [0xF6, 0xAB, 0x0E, 0x18, 1, 1, 3, 7]
    );
}

#[test]
fn every_encoded_message_round_trips_reserved_flag_bits_included() {
    for code in 0..=255u8 {
        let bytes = [0xF6, 0xAB, 0x0E, 0x18, 1, code, code, 255 - code];
        let p = ConnectPrivate::decode(&bytes).unwrap();
        assert_eq!(p.encode(), bytes);
        assert_eq!(p.flags(), code);
        assert_eq!(p.send_size(), (u32::from(code) + 1) * 1024);
        assert_eq!(
            ConnectPrivate::new(p.send_size(), p.recv_size(), p.remote_invalidation()).send_size(),
            p.send_size()
        );
    }
}
