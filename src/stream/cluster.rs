//! The timely configuration of a stream run: worker threads, and for several processes the TCP
//! connections between them, made here so that a peer that never comes is an error after a
//! deadline (timely's own connector retries forever and reports on stdout, where rulings go).

use super::Cluster;
use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};
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

/// One socket per other process, in process order (`None` at this process): this process
/// connects to every process before it and accepts every process after it, each connection
/// opened by the connecting process's number.
pub fn connect(cluster: &Cluster) -> io::Result<Vec<Option<TcpStream>>> {
    let (me, addresses, deadline) = (cluster.process, &cluster.addresses, cluster.connect_timeout);
    let until = Instant::now() + deadline;
    let late = |what: String| io::Error::new(io::ErrorKind::TimedOut, what);
    let listener = TcpListener::bind(addresses[me].as_str())
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {}: {e}", addresses[me])))?;
    listener.set_nonblocking(true)?;
    let mut sockets: Vec<Option<TcpStream>> = (0..addresses.len()).map(|_| None).collect();
    for (peer, address) in addresses.iter().enumerate().take(me) {
        let mut stream = loop {
            match TcpStream::connect(address.as_str()) {
                Ok(s) => break s,
                Err(e) if Instant::now() >= until => {
                    return Err(late(format!("process {peer} at {address} did not answer within {deadline:?}: {e}")))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(50)),
            }
        };
        stream.set_nodelay(true)?;
        stream.write_all(&(me as u64).to_be_bytes())?;
        sockets[peer] = Some(stream);
    }
    while sockets.iter().enumerate().skip(me + 1).any(|(_, s)| s.is_none()) {
        match listener.accept() {
            Ok((mut stream, _)) => {
                stream.set_nonblocking(false)?;
                stream.set_nodelay(true)?;
                stream.set_read_timeout(Some(
                    until.saturating_duration_since(Instant::now()).max(Duration::from_millis(1)),
                ))?;
                let mut id = [0u8; 8];
                stream.read_exact(&mut id)?;
                stream.set_read_timeout(None)?;
                let peer = u64::from_be_bytes(id) as usize;
                if peer <= me || peer >= addresses.len() || sockets[peer].is_some() {
                    return Err(io::Error::other(format!("a connection to process {me} says it is process {peer}")));
                }
                sockets[peer] = Some(stream);
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= until {
                    let missing: Vec<String> = (me + 1..addresses.len())
                        .filter(|&p| sockets[p].is_none())
                        .map(|p| format!("{p} ({})", addresses[p]))
                        .collect();
                    return Err(late(format!("processes {} did not connect within {deadline:?}", missing.join(", "))));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(sockets)
}
