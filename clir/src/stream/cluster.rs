//! The timely configuration of a stream run: worker threads, and for several processes the TCP
//! connections between them, made here so that a peer that never comes is an error after a
//! deadline (timely's own connector retries forever and reports on stdout, where rulings go),
//! and so that every connection proves that both ends hold the cluster key before timely gets it.

use super::Cluster;
use sha2::Sha256;
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};
use subtle::ConstantTimeEq;
use timely::communication::allocator::thread::ThreadBuilder;
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::Hooks;

/// The allocators of this process's workers, and what must live as long as they run.
pub type Allocators = (Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>);

/// Builds the allocators of `workers` threads in this process, connected to the other
/// processes of `cluster` when there are several.
pub fn allocators(workers: usize, cluster: Option<&Cluster>) -> io::Result<Allocators> {
    let hooks = Hooks::default();
    let Some(cluster) = cluster.filter(|c| c.addresses.len() > 1) else {
        if workers == 1 {
            return Ok((vec![AllocatorBuilder::Thread(ThreadBuilder)], Box::new(())));
        }
        let builders = ProcessBuilder::new_typed_vector(workers, hooks.refill, hooks.spill);
        return Ok((builders.into_iter().map(AllocatorBuilder::Process).collect(), Box::new(())));
    };
    let sockets = connect(cluster)?;
    let process_builders = ProcessBuilder::new_typed_vector(workers, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) =
        initialize_networking_from_sockets(process_builders, sockets, cluster.process, workers, hooks)?;
    Ok((builders.into_iter().map(AllocatorBuilder::Tcp).collect(), Box::new(guard)))
}

/// The shortest cluster key accepted, in bytes.
pub const MIN_KEY_BYTES: usize = 16;
/// How long a process that accepts a connection waits for the other end's handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// The first bytes of a handshake: the protocol and its version.
const MAGIC: &[u8; 8] = b"clirstr1";

/// One socket per other process, in process order (`None` at this process): this process
/// connects to every process before it and accepts every process after it. On every connection
/// each end proves that it holds the cluster key (HMAC-SHA256 of the other end's random
/// challenge), so that the key never travels; a connection that does not (a port scan, a
/// stranger, a process of another run) is closed and this process keeps waiting.
pub fn connect(cluster: &Cluster) -> io::Result<Vec<Option<TcpStream>>> {
    let (me, addresses, deadline) = (cluster.process, &cluster.addresses, cluster.connect_timeout);
    if cluster.key.len() < MIN_KEY_BYTES {
        let msg = format!("the cluster key has {} bytes; it needs at least {MIN_KEY_BYTES}", cluster.key.len());
        return Err(io::Error::new(io::ErrorKind::InvalidInput, msg));
    }
    let until = Instant::now().checked_add(deadline).ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, format!("a connect timeout of {deadline:?} is too long"))
    })?;
    let late = |what: String| io::Error::new(io::ErrorKind::TimedOut, what);
    let listener = TcpListener::bind(addresses[me].as_str())
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {}: {e}", addresses[me])))?;
    listener.set_nonblocking(true)?;
    let mut sockets: Vec<Option<TcpStream>> = (0..addresses.len()).map(|_| None).collect();
    for (peer, address) in addresses.iter().enumerate().take(me) {
        let stream = loop {
            match TcpStream::connect(address.as_str()) {
                Ok(s) => break s,
                Err(e) if Instant::now() >= until => {
                    return Err(late(format!("process {peer} at {address} did not answer within {deadline:?}: {e}")))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        };
        let stream = greet(stream, cluster, peer, until)
            .map_err(|e| io::Error::new(e.kind(), format!("process {peer} at {address}: {e}")))?;
        sockets[peer] = Some(stream);
    }
    let mut refused: Vec<String> = Vec::new();
    while sockets.iter().enumerate().skip(me + 1).any(|(_, s)| s.is_none()) {
        match listener.accept() {
            Ok((stream, from)) => {
                let (peer, mut stream) = match welcome(stream, cluster, until) {
                    Ok(accepted) => accepted,
                    Err(why) => {
                        refused.push(format!("{from}: {why}"));
                        continue;
                    }
                };
                if peer <= me || peer >= addresses.len() || sockets[peer].is_some() {
                    let msg = format!("a process with the cluster key ({from}) says it is process {peer}, which process {me} does not wait for: are two runs sharing a key and ports?");
                    return Err(io::Error::other(msg));
                }
                stream.write_all(&[1])?;
                stream.set_read_timeout(None)?;
                stream.set_write_timeout(None)?;
                sockets[peer] = Some(stream);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= until {
                    let missing: Vec<String> = (me + 1..addresses.len())
                        .filter(|&p| sockets[p].is_none())
                        .map(|p| format!("{p} ({})", addresses[p]))
                        .collect();
                    let mut msg = format!("processes {} did not connect within {deadline:?}", missing.join(", "));
                    if let Some(last) = refused.last() {
                        msg.push_str(&format!(
                            "; {} connections were refused for want of the cluster key (the last from {last})",
                            refused.len()
                        ));
                    }
                    return Err(late(msg));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(sockets)
}

/// The handshake of the process that connects (`cluster.process`) to `peer`: it sends its
/// number, the peer's and a challenge; checks the peer's proof; sends its own; and waits for the
/// peer's acceptance. The peer may be busy with its own connections, so this waits until the
/// connect deadline.
fn greet(mut stream: TcpStream, cluster: &Cluster, peer: usize, until: Instant) -> io::Result<TcpStream> {
    let me = cluster.process as u64;
    let wait = Some(until.saturating_duration_since(Instant::now()).max(Duration::from_millis(1)));
    stream.set_nodelay(true)?;
    stream.set_read_timeout(wait)?;
    stream.set_write_timeout(wait)?;
    let ours: [u8; 32] = random_bytes()?;
    let mut hello = MAGIC.to_vec();
    hello.extend_from_slice(&me.to_be_bytes());
    hello.extend_from_slice(&(peer as u64).to_be_bytes());
    hello.extend_from_slice(&ours);
    stream.write_all(&hello)?;
    let mut answer = [0u8; 64];
    stream.read_exact(&mut answer).map_err(|e| refused_by_peer(e, "did not answer the handshake"))?;
    let (theirs, proof) = answer.split_at(32);
    let expected = proof_of(&cluster.key, b"accepts", peer as u64, me, &ours, theirs);
    if !bool::from(expected.as_slice().ct_eq(proof)) {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "it did not prove that it holds the cluster key: another program listens there, or it was given another --cluster-key",
        ));
    }
    stream.write_all(&proof_of(&cluster.key, b"connects", me, peer as u64, theirs, &ours))?;
    let mut accepted = [0u8; 1];
    stream.read_exact(&mut accepted).map_err(|e| refused_by_peer(e, "refused this process"))?;
    stream.set_read_timeout(None)?;
    stream.set_write_timeout(None)?;
    Ok(stream)
}

/// What a failed read of the peer's handshake means.
fn refused_by_peer(e: io::Error, what: &str) -> io::Error {
    let why = match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => "within the connect timeout".to_string(),
        io::ErrorKind::UnexpectedEof | io::ErrorKind::ConnectionReset => {
            "(was it given another --cluster-key, or is it not `clir stream`?)".to_string()
        }
        _ => format!("({e})"),
    };
    io::Error::new(io::ErrorKind::PermissionDenied, format!("{what} {why}"))
}

/// The handshake of the process that accepts a connection: the other end's number once it has
/// proved that it holds the cluster key, or why it is refused. Waits at most
/// [`HANDSHAKE_TIMEOUT`] (and never past the connect deadline).
fn welcome(mut stream: TcpStream, cluster: &Cluster, until: Instant) -> Result<(usize, TcpStream), String> {
    let me = cluster.process as u64;
    let wait = until.saturating_duration_since(Instant::now()).min(HANDSHAKE_TIMEOUT).max(Duration::from_millis(1));
    let setup = |s: &TcpStream| -> io::Result<()> {
        s.set_nonblocking(false)?;
        s.set_nodelay(true)?;
        s.set_read_timeout(Some(wait))?;
        s.set_write_timeout(Some(wait))
    };
    setup(&stream).map_err(|e| e.to_string())?;
    let short = |e: io::Error| match e.kind() {
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => format!("no handshake within {wait:?}"),
        _ => format!("no handshake ({e})"),
    };
    let mut hello = [0u8; 56];
    stream.read_exact(&mut hello).map_err(short)?;
    if &hello[..8] != MAGIC {
        return Err("not a `clir stream` process".into());
    }
    let peer = u64::from_be_bytes(hello[8..16].try_into().unwrap_or_default());
    let target = u64::from_be_bytes(hello[16..24].try_into().unwrap_or_default());
    if target != me {
        return Err(format!("a process that means to reach process {target}"));
    }
    let theirs = &hello[24..56];
    let ours: [u8; 32] = random_bytes().map_err(|e| e.to_string())?;
    let mut answer = ours.to_vec();
    answer.extend_from_slice(&proof_of(&cluster.key, b"accepts", me, peer, theirs, &ours));
    stream.write_all(&answer).map_err(short)?;
    let mut proof = [0u8; 32];
    stream.read_exact(&mut proof).map_err(short)?;
    let expected = proof_of(&cluster.key, b"connects", peer, me, &ours, theirs);
    if !bool::from(expected.as_slice().ct_eq(&proof)) {
        return Err("it did not prove that it holds the cluster key".into());
    }
    let peer = usize::try_from(peer).unwrap_or(usize::MAX);
    Ok((peer, stream))
}

/// The proof that the process `from` holds `key`, for `to`: HMAC-SHA256 over the role, both
/// numbers, the challenge `to` sent and the one `from` sent.
fn proof_of(key: &[u8], role: &[u8], from: u64, to: u64, challenge: &[u8], own: &[u8]) -> [u8; 32] {
    hmac_sha256(key, &[MAGIC, role, &from.to_be_bytes(), &to.to_be_bytes(), challenge, own])
}

/// HMAC-SHA256 (RFC 2104, the `hmac` crate) of the concatenated `parts`.
fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    use hmac::Mac as _;
    let mut mac = hmac::Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
}

/// Unpredictable bytes from the operating system.
fn random_bytes<const N: usize>() -> io::Result<[u8; N]> {
    let mut bytes = [0u8; N];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::hmac_sha256;

    #[test]
    fn hmac_sha256_gives_the_rfc_4231_values() {
        let hex = |b: [u8; 32]| b.iter().map(|b| format!("{b:02x}")).collect::<String>();
        // Test case 2: a key shorter than the block.
        assert_eq!(
            hex(hmac_sha256(b"Jefe", &[b"what do ya want ", b"for nothing?"])),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than the block is hashed first.
        assert_eq!(
            hex(hmac_sha256(&[0xaa; 131], &[b"Test Using Larger Than Block-Size Key - Hash Key First"])),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }
}
