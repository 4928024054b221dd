//! A hostfile for `clir stream --processes N`: free loopback ports, one a process. Included
//! with `#[path]` by the stream tests and benchmark.

/// Writes `dir/hosts` with one free `127.0.0.1:PORT` a line for `processes` processes.
pub fn hostfile(dir: &std::path::Path, processes: usize) -> std::path::PathBuf {
    let listeners: Vec<std::net::TcpListener> =
        (0..processes).map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap()).collect();
    let hosts: Vec<String> = listeners.iter().map(|l| l.local_addr().unwrap().to_string()).collect();
    let path = dir.join("hosts");
    std::fs::write(&path, hosts.join("\n")).unwrap();
    path
}
