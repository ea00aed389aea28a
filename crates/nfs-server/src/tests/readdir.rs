//! READDIR and READDIRPLUS: ".", "..", paging with cookies under byte budgets, cookie verifiers.

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;

use super::wrap::Wrapped;
use super::*;

/// Bytes of a reply after the RPC header and the status word: the resok structure the budget is for.
fn resok_len(reply: &[u8]) -> usize {
    results(reply).len() - 4
}

struct Page {
    names: Vec<Vec<u8>>,
    cookies: Vec<u64>,
    fileids: Vec<u64>,
    verf: CookieVerf3,
    eof: bool,
    resok_len: usize,
}

fn readdir(
    c: &Client<'_>,
    dir: FileHandle3,
    cookie: u64,
    cookieverf: CookieVerf3,
    count: u32,
) -> Result<Page, NfsErr3> {
    let reply = c.nfs(&Nfs3Call::Readdir(ReaddirArgs { dir, cookie, cookieverf, count }));
    let res = expect_reply!(nfs_reply(Nfs3Proc::Readdir, &reply), Readdir);
    let ok = res.into_result().map_err(|(e, _)| e)?;
    Ok(Page {
        names: ok.reply.entries.iter().map(|e| e.name.to_vec()).collect(),
        cookies: ok.reply.entries.iter().map(|e| e.cookie).collect(),
        fileids: ok.reply.entries.iter().map(|e| e.fileid).collect(),
        verf: ok.cookieverf,
        eof: ok.reply.eof,
        resok_len: resok_len(&reply),
    })
}

fn fill(c: &Client<'_>, dir: FileHandle3, n: usize) -> BTreeSet<Vec<u8>> {
    (0..n)
        .map(|i| {
            let name = format!("file-{i:04}-{}", "x".repeat(i % 13)).into_bytes();
            ok(create(c, dir, &name, 0o644), "create");
            name
        })
        .collect()
}

#[test]
fn an_empty_directory_lists_dot_and_dotdot_then_eof() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let page = ok(readdir(&client, root, 0, CookieVerf3::default(), 4096), "readdir");
    assert_eq!(page.names, vec![b".".to_vec(), b"..".to_vec()]);
    assert_eq!(page.cookies, vec![1, 2]);
    assert!(page.eof);
    let root_id = ok(getattr(&client, root), "getattr").fileid;
    assert_eq!(page.fileids, vec![root_id, root_id], "the export root is its own parent");
}

#[test]
fn readdir_pages_through_1000_entries_within_small_count_budgets() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let dir = ok(mkdir(&client, root, b"big", 0o755), "mkdir");
    let expected = fill(&client, dir, 1000);
    for count in [300u32, 1024, 4096, 32768] {
        let (mut cookie, mut verf, mut seen, mut pages) = (0, CookieVerf3::default(), Vec::new(), 0);
        loop {
            let page = ok(readdir(&client, dir, cookie, verf, count), "readdir");
            assert!(page.resok_len <= count as usize, "page of {} bytes for count {count}", page.resok_len);
            assert!(!page.names.is_empty() || page.eof);
            seen.extend(page.names.iter().cloned());
            pages += 1;
            if page.eof {
                break;
            }
            cookie = *page.cookies.last().unwrap_or(&0);
            verf = page.verf;
            assert!(pages < 2000, "no progress");
        }
        let dots = seen.iter().filter(|n| n.as_slice() == b"." || n.as_slice() == b"..").count();
        assert_eq!(dots, 2, "count {count}");
        let listed: BTreeSet<Vec<u8>> =
            seen.into_iter().filter(|n| n.as_slice() != b"." && n.as_slice() != b"..").collect();
        assert_eq!(listed, expected, "count {count}: every entry exactly once");
        if count == 300 {
            assert!(pages > 50, "small budgets mean many pages ({pages})");
        }
    }
}

#[test]
fn a_count_too_small_for_one_entry_is_toosmall() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    assert_eq!(readdir(&client, root, 0, CookieVerf3::default(), 64).err(), Some(NfsErr3::TooSmall));
    assert_eq!(readdir(&client, root, 0, CookieVerf3::default(), 104 + 24).err(), Some(NfsErr3::TooSmall));
    let page = ok(readdir(&client, root, 0, CookieVerf3::default(), 104 + 28), "readdir");
    assert_eq!(page.names, vec![b".".to_vec()], "exactly one entry of 28 bytes fits");
    assert_eq!(page.resok_len, 104 + 28);
}

#[test]
fn readdirplus_returns_handles_and_attributes_within_maxcount() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    let dir = ok(mkdir(&client, root, b"d", 0o755), "mkdir");
    let expected = fill(&client, dir, 300);
    let (mut cookie, mut verf, mut names) = (0, CookieVerf3::default(), BTreeSet::new());
    loop {
        let maxcount = 2048;
        let args = ReaddirplusArgs { dir, cookie, cookieverf: verf, dircount: 512, maxcount };
        let reply = client.nfs(&Nfs3Call::Readdirplus(args));
        assert!(resok_len(&reply) <= maxcount as usize);
        let res = expect_reply!(nfs_reply(Nfs3Proc::Readdirplus, &reply), Readdirplus);
        let page = res.ok().unwrap_or_else(|| panic!("READDIRPLUS failed"));
        for e in &page.reply.entries {
            let handle = e.name_handle.unwrap_or_else(|| panic!("no handle for {:?}", e.name));
            let attrs = e.name_attributes.unwrap_or_else(|| panic!("no attributes"));
            assert_eq!(attrs.fileid, e.fileid);
            match e.name {
                b"." => assert_eq!(handle, dir),
                b".." => assert_eq!(handle, root),
                name => {
                    assert_eq!(lookup(&client, dir, name), Ok(handle));
                    names.insert(name.to_vec());
                }
            }
        }
        if page.reply.eof {
            break;
        }
        cookie = page.reply.entries.last().map_or(0, |e| e.cookie);
        verf = page.cookieverf;
    }
    assert_eq!(names, expected);
}

#[test]
fn a_stale_cookie_verifier_is_bad_cookie_but_zero_is_accepted() {
    let wrapped = Wrapped::new();
    let server = server_with(vec![export("/export", wrapped.clone())]);
    let client = Client::new(&server);
    let root = root_of(&server);
    fill(&client, root, 20);
    wrapped.cookie_verifier.store(7, Ordering::SeqCst);
    let first = ok(readdir(&client, root, 0, CookieVerf3::default(), 300), "readdir");
    assert_eq!(first.verf, CookieVerf3(7u64.to_be_bytes()));
    let cookie = *first.cookies.last().unwrap_or(&0);
    assert!(readdir(&client, root, cookie, first.verf, 300).is_ok());
    wrapped.cookie_verifier.store(8, Ordering::SeqCst);
    assert_eq!(readdir(&client, root, cookie, first.verf, 300).err(), Some(NfsErr3::BadCookie));
    assert!(readdir(&client, root, cookie, CookieVerf3::default(), 300).is_ok(), "a zero verifier is not checked");
    assert!(readdir(&client, root, 0, first.verf, 300).is_ok(), "cookie 0 starts over whatever the verifier");
}

#[test]
fn resuming_after_dot_lists_dotdot_first() {
    let server = server();
    let client = Client::new(&server);
    let root = root_of(&server);
    fill(&client, root, 3);
    let page = ok(readdir(&client, root, 1, CookieVerf3::default(), 4096), "readdir");
    assert_eq!(page.names.first().map(Vec::as_slice), Some(&b".."[..]));
    assert_eq!(page.names.len(), 4);
    let page = ok(readdir(&client, root, 2, CookieVerf3::default(), 4096), "readdir");
    assert_eq!(page.names.len(), 3);
}

#[test]
fn listing_a_file_is_notdir_and_an_unreadable_directory_is_acces() {
    let server = server();
    let owner = Client::new(&server);
    let root = root_of(&server);
    let file = ok(create(&owner, root, b"f", 0o644), "create");
    assert_eq!(readdir(&owner, file, 0, CookieVerf3::default(), 4096).err(), Some(NfsErr3::NotDir));
    let dir = ok(mkdir(&owner, root, b"private", 0o700), "mkdir");
    let other = Client::new(&server).user(2000, 2000);
    assert_eq!(readdir(&other, dir, 0, CookieVerf3::default(), 4096).err(), Some(NfsErr3::Acces));
}
